// The Translation page's backfills: start one (a configured language, optional module and type), and
// follow the running ones and the latest ended, with progress, rate and ETA, refreshed every 2 s.

import { api, describeError } from '../api.js';
import { badge, field, fill, h, input, notice, table } from '../dom.js';
import type { Backfill, Status } from '../types.js';

const BACKFILLS_EVERY_MS = 2_000;

/** The backfills card; the returned function stops its refreshing. */
export function backfillsCard(): { card: HTMLElement; stop: () => void } {
  const list = h('div', { 'aria-live': 'polite' });
  const refresh = () =>
    api<Status>('GET', '/api/admin/translate/status')
      .then((status) => fill(list, backfillsTable(status.backfills.latest, refresh)))
      .catch((err) => fill(list, notice('error', describeError(err))));
  const card = h(
    'section',
    { class: 'card', 'aria-labelledby': 'backfills-title' },
    h('h3', { id: 'backfills-title' }, 'Backfills'),
    h(
      'p',
      { class: 'muted' },
      'Stored content lacking a language is translated in the background; adding a target language starts its backfill.',
    ),
    startForm(refresh),
    list,
  );
  void refresh();
  const timer = setInterval(() => void refresh(), BACKFILLS_EVERY_MS);
  return { card, stop: () => clearInterval(timer) };
}

function startForm(refresh: () => Promise<unknown>): HTMLElement {
  const language = input({ name: 'language', required: true, placeholder: 'ca' });
  const module = input({ name: 'module', placeholder: 'all' });
  const type = input({ name: 'entity_type', placeholder: 'all' });
  const result = h('div', { 'aria-live': 'polite' });
  const form = h(
    'form',
    { 'aria-label': 'Start a backfill' },
    h(
      'div',
      { class: 'row' },
      field('Language', language),
      field('Module', module),
      field('Entity type', type),
    ),
    h('button', { type: 'submit' }, 'Start backfill'),
    result,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    api<{ created: boolean; backfill: Backfill }>('POST', '/api/admin/translate/backfill', {
      language: language.value,
      ...(module.value ? { module: module.value } : {}),
      ...(type.value ? { entity_type: type.value } : {}),
    })
      .then((r) => {
        const what = r.created ? 'Started' : 'Already running';
        fill(result, notice('ok', `${what}: ${r.backfill.total} field(s) lack ${r.backfill.language}.`));
        return refresh();
      })
      .catch((err) => fill(result, notice('error', describeError(err))));
  });
  return form;
}

const TONES = { running: 'warn', done: 'good', cancelled: 'plain', stopped: 'plain' } as const;

function backfillsTable(backfills: readonly Backfill[], refresh: () => Promise<unknown>): HTMLElement {
  if (backfills.length === 0) return h('p', { class: 'muted' }, 'No backfill yet.');
  return table(
    'Running backfills first, then the latest ended',
    ['Language', 'Scope', 'Status', 'Progress', 'Done', 'Failed', 'Remaining', 'Rate', 'ETA', ''],
    backfills.map((b) => [
      b.language,
      [b.module, b.entity_type].filter(Boolean).join(' / ') || 'all',
      badge(b.status, TONES[b.status]),
      h('progress', {
        max: Math.max(1, b.done + b.failed + b.remaining),
        value: b.done + b.failed,
        'aria-label': `Backfill ${b.language}`,
      }),
      String(b.done),
      String(b.failed),
      String(b.remaining),
      `${b.rate_per_s}/s`,
      b.eta_s === null ? '—' : `${b.eta_s} s`,
      b.status === 'running' ? cancelButton(b, refresh) : '',
    ]),
  );
}

function cancelButton(b: Backfill, refresh: () => Promise<unknown>): HTMLElement {
  const button = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
  button.addEventListener('click', () => {
    void api('DELETE', `/api/admin/translate/backfill/${encodeURIComponent(b.id)}`)
      .catch(() => undefined)
      .then(refresh);
  });
  return button;
}
