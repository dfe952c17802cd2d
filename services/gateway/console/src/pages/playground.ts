// Translate any pair the engines serve, showing the engine and the route (pivots included).

import { api, describeError } from '../api.js';
import { field, fill, h, notice, select, table } from '../dom.js';
import type { Pairs, Translation } from '../types.js';

export async function playgroundPage(root: HTMLElement) {
  const { pairs } = await api<Pairs>('GET', '/api/v1/translate/pairs');
  const sources = [...new Set(pairs.map((p) => p.source))].sort();
  const source = select([['auto', 'Detect'], ...sources.map((s): [string, string] => [s, s])], {
    name: 'source',
  });
  const target = select([], { name: 'target' });
  const targetsFor = () => {
    const all = source.value === 'auto' ? pairs : pairs.filter((p) => p.source === source.value);
    const targets = [...new Set(all.map((p) => p.target))].sort();
    const current = target.value;
    fill(target, ...targets.map((t) => h('option', { value: t }, t)));
    if (targets.includes(current)) target.value = current;
  };
  source.addEventListener('change', targetsFor);
  targetsFor();
  const text = h('textarea', { name: 'text', rows: 4, required: true, maxlength: 5000 });
  const result = h('div', { 'aria-live': 'polite' });
  const form = h(
    'form',
    { class: 'card', 'aria-label': 'Translate' },
    h('div', { class: 'row' }, field('From', source), field('To', target)),
    field('Text', text),
    h('button', { type: 'submit' }, 'Translate'),
    result,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    fill(result, h('progress', { 'aria-label': 'Translating' }));
    api<Translation>('POST', '/api/v1/translate', {
      text: text.value,
      target: target.value,
      ...(source.value === 'auto' ? {} : { source: source.value }),
    })
      .then((t) =>
        fill(
          result,
          h('p', { class: 'translated', lang: t.target }, t.translatedText),
          h(
            'p',
            { class: 'muted' },
            `${t.source} → ${t.target} by ${t.engine}${t.cached ? ' (cached)' : ''} in ${Math.round(t.duration * 1000)} ms`,
          ),
          t.route?.length
            ? table(
                'Route',
                ['From', 'To', 'Engine'],
                t.route.map((r) => [r.source, r.target, r.engine]),
              )
            : null,
        ),
      )
      .catch((err) => fill(result, notice('error', describeError(err))));
  });
  root.append(h('p', { class: 'muted' }, `${pairs.length} pair(s) served by the engines.`), form);
}
