// Processes and dependencies, engines (health, breaker, pairs), queue and lag, dead letters, and a
// live chart of translations and errors per second from the gateway's request counters.

import { api } from '../api.js';
import { drawChart } from '../chart.js';
import { badge, fill, h, notice, table, time } from '../dom.js';
import type { Pairs, RequestCounters, Status } from '../types.js';

const STATUS_EVERY_MS = 10_000;
const CHART_EVERY_MS = 2_000;
const CHART_POINTS = 60;

const tone = (word: string) =>
  ['ready', 'up', 'closed'].includes(word)
    ? 'good'
    : ['recovering', 'half-open', 'not_ready', 'degraded'].includes(word)
      ? 'warn'
      : word === 'not_configured'
        ? 'plain'
        : 'bad';

/** Why a process or its dependencies are not all up, as the process's own /ready says. */
function whyNotUp(p: Status['processes'][string]): string {
  const deps = Object.entries(p.dependencies).flatMap(([dep, d]) =>
    d.status === 'up' ? [] : [`${dep} ${d.status}: ${d.error ?? d.reason ?? 'no reason given'}`],
  );
  return [p.error, ...deps].filter(Boolean).join('; ');
}

function processes(status: Status): HTMLElement {
  const rows = Object.entries(status.processes).map(([name, p]) => [
    name,
    badge(p.status, tone(p.status)),
    h(
      'ul',
      { class: 'inline' },
      ...Object.entries(p.dependencies).map(([dep, d]) =>
        h('li', {}, `${dep} `, badge(d.status, tone(d.status)), d.required ? '' : ' (optional)'),
      ),
    ),
    whyNotUp(p),
  ]);
  return table('Processes and their dependencies', ['Process', 'State', 'Dependencies', 'Why'], rows);
}

function engines(status: Status, pairs: Pairs | undefined): HTMLElement {
  const byEngine = new Map<string, string[]>();
  for (const pair of pairs?.pairs ?? []) {
    for (const engine of pair.engines)
      byEngine.set(engine, [...(byEngine.get(engine) ?? []), `${pair.source}→${pair.target}`]);
  }
  const rows = status.engines.slots.map((s) => {
    const served = s.engine ? (byEngine.get(s.engine) ?? []) : [];
    return [
      s.slot,
      s.engine ?? '—',
      badge(s.health, tone(s.health)),
      s.breaker ? badge(s.breaker, tone(s.breaker)) : '—',
      `${s.successes} / ${s.failures}`,
      served.length
        ? `${served.length}: ${served.slice(0, 12).join(', ')}${served.length > 12 ? ', …' : ''}`
        : '—',
      s.last_error ? `${s.last_error.reason} (${time(s.last_error.at)})` : '',
    ];
  });
  return h(
    'div',
    { class: 'engines' },
    table(
      'Engines',
      ['Slot', 'Engine', 'Health', 'Breaker', 'OK / failed', 'Pairs served', 'Last error'],
      rows,
    ),
    status.engines.error ? notice('error', `Engines: ${status.engines.error}`) : null,
  );
}

function queue(status: Status): HTMLElement {
  const q = status.queue;
  const lag = (v: number | null, error?: string) =>
    v === null ? `unknown${error ? ` (${error})` : ''}` : String(v);
  return table(
    'Queue and consumer lag',
    ['Part', 'Value'],
    [
      ['Queue length', lag(q.length)],
      ['Outbox backlog (unpublished rows)', lag(q.outbox.unpublished, q.outbox.error)],
      [
        'Oldest unpublished row',
        q.outbox.oldest_age_seconds === null ? '—' : `${Math.round(q.outbox.oldest_age_seconds)} s`,
      ],
      [
        `Lag of ${q.requested.consumer_group} on ${q.requested.topic}`,
        lag(q.requested.lag, q.requested.error),
      ],
      [`Lag of ${q.retry.consumer_group} on ${q.retry.topic}`, lag(q.retry.lag, q.retry.error)],
      [
        'Dead letters',
        h('a', { href: '#/dead-letters' }, lag(status.dead_letters.count, status.dead_letters.error)),
      ],
    ],
  );
}

async function refreshStatus(host: HTMLElement): Promise<void> {
  const [status, pairs] = await Promise.all([
    api<Status>('GET', '/api/admin/translate/status'),
    api<Pairs>('GET', '/api/v1/translate/pairs').catch(() => undefined),
  ]);
  fill(
    host,
    h(
      'p',
      { class: 'muted' },
      `Checked ${time(status.checked_at)} UTC; refreshed every ${STATUS_EVERY_MS / 1000} s.`,
    ),
    h('div', { class: 'grid' }, processes(status), queue(status)),
    engines(status, pairs),
  );
}

export async function overviewPage(root: HTMLElement) {
  const statusHost = h('section', { 'aria-label': 'Status' });
  const chartHost = h('div', { class: 'chart-host' });
  const chartNote = h('p', { class: 'muted', 'aria-live': 'polite' });
  root.append(
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'chart-title' },
      h('h3', { id: 'chart-title' }, 'Translations and errors per second (this gateway)'),
      h(
        'p',
        { class: 'legend' },
        h('span', { class: 'key translations' }, 'translations/s'),
        ' ',
        h('span', { class: 'key errors' }, 'errors/s (5xx)'),
      ),
      chartHost,
      chartNote,
    ),
    statusHost,
  );
  await refreshStatus(statusHost);
  const chart = liveChart(chartHost, chartNote);
  const timer = setInterval(() => void refreshStatus(statusHost).catch(() => undefined), STATUS_EVERY_MS);
  return () => {
    clearInterval(timer);
    chart();
  };
}

/** Sums the counters: translations answered below 400, and every 5xx answer. */
function totals(counters: RequestCounters) {
  let translations = 0;
  let errors = 0;
  for (const s of counters.series) {
    if (s.method === 'POST' && s.route === '/api/v1/translate' && s.status < 400) translations += s.count;
    if (s.status >= 500) errors += s.count;
  }
  return { translations, errors, at: Date.parse(counters.at) };
}

function liveChart(host: HTMLElement, note: HTMLElement): () => void {
  const translations: number[] = [];
  const errors: number[] = [];
  let last: ReturnType<typeof totals> | undefined;
  const tick = async () => {
    const now = totals(await api<RequestCounters>('GET', '/api/admin/metrics/requests'));
    if (last && now.at > last.at) {
      const seconds = (now.at - last.at) / 1000;
      translations.push(Math.max(0, now.translations - last.translations) / seconds);
      errors.push(Math.max(0, now.errors - last.errors) / seconds);
      if (translations.length > CHART_POINTS) translations.shift();
      if (errors.length > CHART_POINTS) errors.shift();
    }
    last = now;
    drawChart(
      host,
      'Translations and errors per second',
      [
        { name: 'translations', className: 'translations', points: translations },
        { name: 'errors', className: 'errors', points: errors },
      ],
      CHART_POINTS,
    );
    note.textContent = `Now: ${(translations.at(-1) ?? 0).toFixed(1)} translations/s, ${(errors.at(-1) ?? 0).toFixed(1)} errors/s; ${now.translations} translations since the gateway started.`;
  };
  void tick().catch(() => undefined);
  const timer = setInterval(() => void tick().catch(() => undefined), CHART_EVERY_MS);
  return () => clearInterval(timer);
}
