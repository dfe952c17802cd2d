// Moderation terms, the NLI classifier's configuration, a test of it, and its model's readiness.

import { api, describeError } from '../api.js';
import { badge, field, fill, h, input, notice, select, table, time } from '../dom.js';

interface Term {
  id: string;
  term: string;
  kind: 'block' | 'allow';
  language: string | null;
  created_at: string;
}
interface NliConfig {
  candidate_labels: string[];
  safe_labels: string[];
  threshold: number;
  hypothesis_template: string;
  enabled: boolean;
  revision: number;
}
interface NliStatus {
  online: boolean;
  model_ready: boolean;
  model_id: string | null;
  test_model: boolean;
  model_error?: string;
  error?: string;
}

const list = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

export async function moderationPage(root: HTMLElement) {
  const termsHost = h('section', { class: 'card', 'aria-labelledby': 'terms-title' });
  const nliHost = h('div', {});
  root.append(termsHost, nliHost);
  // Each part reports its own failure: the NLI service may be down while the terms are not.
  await Promise.all([
    showTerms(termsHost).catch((err) => fill(termsHost, notice('error', `Terms: ${describeError(err)}`))),
    showNli(nliHost),
  ]);
}

async function showNli(host: HTMLElement): Promise<void> {
  const [status, config] = await Promise.all([
    api<NliStatus>('GET', '/api/admin/nli/status').catch(
      (err) => ({ error: describeError(err) }) as NliStatus,
    ),
    api<NliConfig>('GET', '/api/admin/nli/config').catch((err) => describeError(err)),
  ]);
  fill(
    host,
    statusCard(status),
    typeof config === 'string' ? notice('error', `NLI configuration: ${config}`) : configForm(config),
    testForm(typeof config === 'string' ? [] : config.candidate_labels),
  );
}

async function showTerms(host: HTMLElement): Promise<void> {
  const { terms } = await api<{ terms: Term[] }>('GET', '/api/admin/moderation/terms');
  const term = input({ name: 'term', required: true });
  const kind = select(['block', 'allow'], { name: 'kind' });
  const language = input({ name: 'language', placeholder: 'any' });
  const status = h('div', { 'aria-live': 'polite' });
  const form = h(
    'form',
    { class: 'row' },
    field('Term', term),
    field('Kind', kind),
    field('Language (empty: any)', language),
    h('button', { type: 'submit' }, 'Add term'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    api('POST', '/api/admin/moderation/terms', {
      term: term.value,
      kind: kind.value,
      ...(language.value ? { language: language.value } : {}),
    })
      .then(() => showTerms(host))
      .catch((err) => fill(status, notice('error', describeError(err))));
  });
  const remove = (t: Term) =>
    void api('DELETE', `/api/admin/moderation/terms/${t.id}`)
      .then(() => showTerms(host))
      .catch((err) => fill(status, notice('error', describeError(err))));
  fill(
    host,
    h('h3', { id: 'terms-title' }, 'Moderation terms'),
    form,
    status,
    table(
      `${terms.length} term(s)`,
      ['Term', 'Kind', 'Language', 'Added', ''],
      terms.map((t) => [
        t.term,
        badge(t.kind, t.kind === 'block' ? 'bad' : 'good'),
        t.language ?? 'any',
        time(t.created_at),
        h('button', { type: 'button', class: 'secondary', onclick: () => remove(t) }, `Delete ${t.term}`),
      ]),
    ),
  );
}

function statusCard(s: NliStatus): HTMLElement {
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'nli-status-title' },
    h('h3', { id: 'nli-status-title' }, 'NLI model'),
    s.error
      ? notice('error', s.error)
      : table(
          'Readiness',
          ['', ''],
          [
            ['Service', badge(s.online ? 'online' : 'offline', s.online ? 'good' : 'bad')],
            ['Model', badge(s.model_ready ? 'ready' : 'not ready', s.model_ready ? 'good' : 'warn')],
            ['Model id', `${s.model_id ?? '—'}${s.test_model ? ' (test model)' : ''}`],
            ['Model error', s.model_error ?? '—'],
          ],
        ),
  );
}

function configForm(c: NliConfig): HTMLElement {
  const candidates = input({ value: c.candidate_labels.join(', ') });
  const safe = input({ value: c.safe_labels.join(', ') });
  const threshold = input({ type: 'number', min: 0, max: 1, step: 0.01, value: c.threshold });
  const template = input({ value: c.hypothesis_template });
  const enabled = h('input', { type: 'checkbox', id: 'nli-enabled', checked: c.enabled });
  const status = h('div', { 'aria-live': 'polite' });
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'nli-config-title' },
    h('h3', { id: 'nli-config-title' }, 'NLI configuration'),
    field('Candidate labels', candidates, 'Comma-separated.'),
    field('Safe labels', safe, 'Comma-separated; a subset of the candidates.'),
    h('div', { class: 'row' }, field('Threshold', threshold), field('Hypothesis template', template)),
    h(
      'div',
      { class: 'field checkbox' },
      enabled,
      h('label', { for: 'nli-enabled' }, 'NLI moderation enabled'),
    ),
    h('button', { type: 'submit' }, 'Save NLI configuration'),
    status,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    api<NliConfig>('PUT', '/api/admin/nli/config', {
      candidate_labels: list(candidates.value),
      safe_labels: list(safe.value),
      threshold: Number(threshold.value),
      hypothesis_template: template.value,
      enabled: enabled.checked,
    })
      .then((saved) => fill(status, notice('ok', `Saved (revision ${saved.revision}).`)))
      .catch((err) => fill(status, notice('error', describeError(err))));
  });
  return form;
}

function testForm(candidates: readonly string[]): HTMLElement {
  const text = h('textarea', { rows: 2, required: true });
  const labels = input({ value: candidates.join(', ') });
  const result = h('div', { 'aria-live': 'polite' });
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'nli-test-title' },
    h('h3', { id: 'nli-test-title' }, 'Test the classifier'),
    field('Text', text),
    field('Labels', labels, 'Comma-separated.'),
    h('button', { type: 'submit' }, 'Classify'),
    result,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    fill(result, h('progress', { 'aria-label': 'Classifying' }));
    api<{ labels: string[]; scores: number[]; model: string }>('POST', '/api/admin/nli/test', {
      text: text.value,
      candidate_labels: list(labels.value),
    })
      .then((r) =>
        fill(
          result,
          table(
            `Scores from ${r.model}`,
            ['Label', 'Score'],
            r.labels.map((l, i) => [l, (r.scores[i] ?? 0).toFixed(3)]),
          ),
        ),
      )
      .catch((err) => fill(result, notice('error', describeError(err))));
  });
  return form;
}
