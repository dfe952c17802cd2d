// Translation settings (target languages, enabled), the backfills, a test of the engine chain showing
// each attempt, and retranslating one entity.

import { api, describeError } from '../api.js';
import { badge, field, fill, h, input, notice, table } from '../dom.js';
import type { Translation } from '../types.js';
import { backfillsCard } from './backfills.js';

interface Config {
  target_languages: string[];
  enabled: boolean;
  revision: number;
  updated_at: string;
}

const languagesOf = (text: string) => text.split(/[\s,]+/).filter(Boolean);

export async function translationPage(root: HTMLElement) {
  const config = await api<Config>('GET', '/api/admin/translate/config');
  const backfills = backfillsCard();
  root.append(configForm(config), backfills.card, testForm(), retranslateForm());
  return backfills.stop;
}

function configForm(config: Config): HTMLElement {
  const languages = input({ value: config.target_languages.join(', '), name: 'target_languages' });
  const enabled = h('input', { type: 'checkbox', name: 'enabled', checked: config.enabled });
  const status = h('div', { 'aria-live': 'polite' });
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'config-title' },
    h('h3', { id: 'config-title' }, 'Settings'),
    field('Target languages', languages, 'Comma-separated tags, e.g. en, fr, zh-CN.'),
    h(
      'div',
      { class: 'field checkbox' },
      enabled,
      h('label', { for: (enabled.id = 'cfg-enabled') }, 'Translation enabled'),
    ),
    h('button', { type: 'submit' }, 'Save settings'),
    status,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    api<Config>('PUT', '/api/admin/translate/config', {
      target_languages: languagesOf(languages.value),
      enabled: enabled.checked,
    })
      .then((saved) => fill(status, notice('ok', `Saved (revision ${saved.revision}).`)))
      .catch((err) => fill(status, notice('error', describeError(err))));
  });
  return form;
}

function testForm(): HTMLElement {
  const text = h('textarea', { name: 'text', rows: 3, required: true });
  const source = input({ name: 'source', placeholder: 'auto' });
  const target = input({ name: 'target', required: true, value: 'en' });
  const result = h('div', { 'aria-live': 'polite' });
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'test-title' },
    h('h3', { id: 'test-title' }, 'Test the engine chain'),
    field('Text', text),
    h('div', { class: 'row' }, field('Source (empty: detect)', source), field('Target', target)),
    h('button', { type: 'submit' }, 'Run the chain'),
    result,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    fill(result, h('progress', { 'aria-label': 'Translating' }));
    api<Translation>('POST', '/api/admin/translate/test', {
      text: text.value,
      target: target.value,
      ...(source.value ? { source: source.value } : {}),
    })
      .then((t) =>
        fill(
          result,
          h('p', {}, h('strong', {}, t.translatedText)),
          h(
            'p',
            { class: 'muted' },
            `${t.source} → ${t.target} by ${t.engine} in ${Math.round(t.duration * 1000)} ms`,
          ),
          table(
            'Attempts, in order',
            ['Slot', 'Engine', 'Outcome', 'Reason', 'ms'],
            (t.attempts ?? []).map((a) => [
              a.slot,
              a.engine ?? '—',
              badge(a.outcome, a.outcome === 'ok' ? 'good' : a.outcome === 'skipped' ? 'plain' : 'bad'),
              a.reason ?? '',
              String(Math.round(a.duration_ms)),
            ]),
          ),
        ),
      )
      .catch((err) => fill(result, notice('error', describeError(err))));
  });
  return form;
}

function retranslateForm(): HTMLElement {
  const module = input({ name: 'module', required: true });
  const type = input({ name: 'type', required: true, value: 'vendor' });
  const id = input({ name: 'id', required: true });
  const result = h('div', { 'aria-live': 'polite' });
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'retranslate-title' },
    h('h3', { id: 'retranslate-title' }, 'Retranslate an entity'),
    h('div', { class: 'row' }, field('Module', module), field('Entity type', type), field('Entity id', id)),
    h('button', { type: 'submit' }, 'Retranslate'),
    result,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const path = [module.value, type.value, id.value].map(encodeURIComponent).join('/');
    api<{ requested: number; fields: string[]; target_languages: string[] }>(
      'POST',
      `/api/admin/translate/retranslate/${path}`,
    )
      .then((r) =>
        fill(
          result,
          notice(
            'ok',
            `Queued ${r.requested} request(s): fields ${r.fields.join(', ')} into ${r.target_languages.join(', ')}.`,
          ),
        ),
      )
      .catch((err) => fill(result, notice('error', describeError(err))));
  });
  return form;
}
