// Dead letters: filter by kind (code, topic, group) and failure time, open one, and replay or purge
// the filtered set: a dry run counts it first, the operator confirms, progress shows while it runs.

import { api, describeError, type Query } from '../api.js';
import { badge, field, fill, h, input, notice, select, table, time } from '../dom.js';
import type { DeadLetter, DeadLetterKind, DeadLetterPage } from '../types.js';

const BASE = '/api/admin/translate/dead-letters';
const PAGE_SIZE = 50;

interface Filters {
  code?: string;
  topic?: string;
  group?: string;
  from?: string;
  to?: string;
}

const isoOf = (local: string) => (local ? new Date(local).toISOString() : undefined);
const distinct = (kinds: readonly DeadLetterKind[], pick: (k: DeadLetterKind) => string) =>
  [...new Set(kinds.map(pick))].sort();

/** The body of a replay or purge for the filters: a range or all, narrowed by kind. */
function selection(f: Filters): Record<string, unknown> {
  const kind = {
    ...(f.code ? { code: f.code } : {}),
    ...(f.topic ? { topic: f.topic } : {}),
    ...(f.group ? { group: f.group } : {}),
  };
  if (f.from || f.to) {
    return { from: f.from ?? '1970-01-01T00:00:00.000Z', to: f.to ?? '9999-12-31T00:00:00.000Z', ...kind };
  }
  return Object.keys(kind).length > 0 ? kind : { all: true };
}

function describe(f: Filters): string {
  const parts = [
    f.code && `code ${f.code}`,
    f.topic && `topic ${f.topic}`,
    f.group && `group ${f.group}`,
    f.from && `from ${time(f.from)}`,
    f.to && `to ${time(f.to)}`,
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : 'every entry';
}

/** The filter form: its fields, the filters they give, and the kinds offered in the selects. */
function filterForm() {
  const code = select([['', 'Any code']], { name: 'code' });
  const topic = select([['', 'Any topic']], { name: 'topic' });
  const group = select([['', 'Any group']], { name: 'group' });
  const from = input({ type: 'datetime-local', name: 'from', step: 1 });
  const to = input({ type: 'datetime-local', name: 'to', step: 1 });
  const form = h(
    'form',
    { class: 'card filters', 'aria-label': 'Filter dead letters' },
    field('Error code', code),
    field('Original topic', topic),
    field('Consumer group', group),
    field('Failed from', from),
    field('Failed before', to),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit' }, 'Apply filters'),
      h('button', { type: 'reset', class: 'secondary' }, 'Clear'),
    ),
  );
  const selects = [
    [code, 'Any code', (k: DeadLetterKind) => k.code],
    [topic, 'Any topic', (k: DeadLetterKind) => k.topic],
    [group, 'Any group', (k: DeadLetterKind) => k.group],
  ] as const;
  return {
    form,
    filters: (): Filters => ({
      ...(code.value ? { code: code.value } : {}),
      ...(topic.value ? { topic: topic.value } : {}),
      ...(group.value ? { group: group.value } : {}),
      ...(from.value ? { from: isoOf(from.value) } : {}),
      ...(to.value ? { to: isoOf(to.value) } : {}),
    }),
    /** Offers the kinds present, keeping a choice that is still among them. */
    offer(kinds: readonly DeadLetterKind[]) {
      for (const [el, any, pick] of selects) {
        const values = distinct(kinds, pick);
        const current = el.value;
        fill(el, h('option', { value: '' }, any), ...values.map((v) => h('option', { value: v }, v)));
        el.value = values.includes(current) ? current : '';
      }
    },
    choose(kind: DeadLetterKind) {
      code.value = kind.code;
      topic.value = kind.topic;
      group.value = kind.group;
    },
  };
}

export async function deadLettersPage(root: HTMLElement) {
  const filter = filterForm();
  const kindsHost = h('section', { 'aria-label': 'Kinds of failure' });
  const listHost = h('section', { 'aria-label': 'Matching entries', 'aria-live': 'polite' });
  const bulkHost = h('section', { class: 'card', 'aria-label': 'Replay or purge' });
  const bulkStatus = h('div', { class: 'bulk-status', 'aria-live': 'polite' });
  const detailHost = h('section', { 'aria-label': 'Entry' });
  root.append(filter.form, kindsHost, bulkHost, bulkStatus, listHost, detailHost);

  const load = async (): Promise<void> => {
    const f = filter.filters();
    const page = await api<DeadLetterPage>('GET', BASE, undefined, { ...f, limit: PAGE_SIZE } as Query);
    filter.offer(page.kinds);
    const pick = (k: DeadLetterKind) => {
      filter.choose(k);
      void load();
    };
    fill(kindsHost, kindsTable(page.kinds, pick));
    fill(
      listHost,
      entriesTable(page, (id) => void open(id, detailHost)),
    );
    fill(bulkHost, bulkActions(f, page.matched, bulkStatus, load));
  };
  filter.form.addEventListener('submit', (event) => {
    event.preventDefault();
    void load().catch((err) => fill(listHost, notice('error', describeError(err))));
  });
  // The form's fields change after the reset event; load once they have.
  filter.form.addEventListener('reset', () => setTimeout(() => void load(), 0));
  await load();
}

function kindsTable(kinds: readonly DeadLetterKind[], pick: (k: DeadLetterKind) => void): HTMLElement {
  if (kinds.length === 0) return notice('info', 'The dead-letter index is empty.');
  return table(
    'Kinds of failure in the index',
    ['Count', 'Code', 'Topic', 'Group', ''],
    kinds.map((k) => [
      String(k.count),
      k.code,
      k.topic,
      k.group,
      h(
        'button',
        { type: 'button', class: 'secondary', onclick: () => pick(k) },
        `Show ${k.code} from ${k.topic}`,
      ),
    ]),
  );
}

function entriesTable(page: DeadLetterPage, openEntry: (id: number) => void): HTMLElement {
  const summary = h(
    'p',
    { id: 'dl-summary' },
    `${page.matched} matching of ${page.total} in the index${page.entries.length < page.matched ? `; the newest ${page.entries.length} shown` : ''}.`,
  );
  const rows = page.entries.map((e) => [
    String(e.id),
    time(e.failed_at),
    `${e.original_topic} [${e.original_partition}] @${e.original_offset}`,
    e.consumer_group,
    badge(e.error_code, 'bad'),
    e.error_message.slice(0, 140),
    h('button', { type: 'button', class: 'secondary', onclick: () => openEntry(e.id) }, `Open ${e.id}`),
  ]);
  return h(
    'div',
    {},
    summary,
    table(
      'Matching dead letters, newest first',
      ['Id', 'Failed at (UTC)', 'Origin', 'Group', 'Code', 'Message', ''],
      rows,
    ),
  );
}

async function open(id: number, host: HTMLElement): Promise<void> {
  try {
    const entry = await api<DeadLetter>('GET', `${BASE}/${id}`);
    const payload =
      entry.payload.encoding === 'json'
        ? h('pre', { tabindex: 0 }, JSON.stringify(entry.payload.value, null, 2))
        : h(
            'div',
            {},
            notice('info', `Does not decode: ${entry.payload.decode_error}`),
            h('pre', { tabindex: 0 }, entry.payload.value),
          );
    const heading = h('h3', { tabindex: -1 }, `Dead letter ${entry.id}`);
    fill(
      host,
      h(
        'div',
        { class: 'card' },
        heading,
        h('p', {}, `${entry.error_code} after ${entry.attempts} attempt(s): ${entry.error_message}`),
        h(
          'p',
          { class: 'muted' },
          `Key ${entry.key ?? '(none)'}, event ${entry.event_id ?? '(none)'}, failed ${time(entry.failed_at)} UTC`,
        ),
        table(
          'Headers',
          ['Name', 'Value'],
          Object.entries(entry.headers).map(([k, v]) => [k, v]),
        ),
        h('h4', {}, entry.payload.encoding === 'json' ? 'Payload (decoded)' : 'Payload (base64)'),
        payload,
      ),
    );
    heading.focus();
  } catch (err) {
    fill(host, notice('error', describeError(err)));
  }
}

function bulkActions(
  f: Filters,
  matched: number,
  status: HTMLElement,
  reload: () => Promise<void>,
): HTMLElement {
  const run = (verb: 'replay' | 'purge') => void confirmThenRun(verb, f, status, reload);
  return h(
    'div',
    {},
    h('h3', {}, 'Replay or purge what matches'),
    h(
      'p',
      { class: 'muted' },
      `Selection: ${describe(f)} (${matched} now). A dry run counts first; nothing runs before you confirm.`,
    ),
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        { type: 'button', onclick: () => run('replay'), disabled: matched === 0 },
        'Replay matching…',
      ),
      h(
        'button',
        { type: 'button', class: 'danger', onclick: () => run('purge'), disabled: matched === 0 },
        'Purge matching…',
      ),
    ),
  );
}

async function confirmThenRun(
  verb: 'replay' | 'purge',
  f: Filters,
  status: HTMLElement,
  reload: () => Promise<void>,
) {
  const body = selection(f);
  try {
    const dry = await api<{ selected: number }>('POST', `${BASE}/${verb}`, { ...body, dry_run: true });
    const go = h(
      'button',
      { type: 'button', class: verb === 'purge' ? 'danger' : '' },
      `Confirm ${verb} of ${dry.selected}`,
    );
    const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
    fill(
      status,
      h(
        'div',
        { class: 'confirm', role: 'alertdialog', 'aria-label': `Confirm ${verb}` },
        h(
          'p',
          {},
          `Dry run: ${verb} would take ${dry.selected} entr${dry.selected === 1 ? 'y' : 'ies'} (${describe(f)}).`,
        ),
        go,
        ' ',
        cancel,
      ),
    );
    go.focus();
    cancel.addEventListener('click', () =>
      fill(status, notice('info', `${verb} cancelled; nothing was done.`)),
    );
    go.addEventListener('click', () => void execute(verb, body, dry.selected, status, reload));
  } catch (err) {
    fill(status, notice('error', describeError(err)));
  }
}

async function execute(
  verb: 'replay' | 'purge',
  body: Record<string, unknown>,
  expected: number,
  status: HTMLElement,
  reload: () => Promise<void>,
) {
  fill(
    status,
    h(
      'p',
      {},
      `${verb === 'replay' ? 'Replaying' : 'Purging'} ${expected}… `,
      h('progress', { 'aria-label': `${verb} in progress` }),
    ),
  );
  try {
    const done = await api<{
      selected: number;
      gone: number;
      replayed?: number;
      purged?: number;
      refused?: unknown[];
    }>('POST', `${BASE}/${verb}`, body);
    const count = verb === 'replay' ? done.replayed : done.purged;
    const refused = done.refused?.length ? `; ${done.refused.length} refused` : '';
    await reload();
    fill(
      status,
      notice(
        'ok',
        `${verb === 'replay' ? 'Replayed' : 'Purged'} ${count} of ${done.selected} selected${done.gone ? `; ${done.gone} left meanwhile` : ''}${refused}.`,
      ),
    );
  } catch (err) {
    fill(status, notice('error', describeError(err)));
  }
}
