// API keys: create (the key is shown once), list with translated characters, revoke; chat usage per key.

import { api, describeError } from '../api.js';
import { badge, field, fill, h, input, notice, select, table, time } from '../dom.js';
import type { ApiKey } from '../types.js';

interface Usage {
  since: string;
  until: string;
  rows: { key_id: string; key_name: string; model: string; requests: number; total_tokens: number }[];
  totals: { requests: number; total_tokens: number };
}

export async function keysPage(root: HTMLElement) {
  const listHost = h('section', { class: 'card', 'aria-labelledby': 'keys-title' });
  const usageHost = h('section', { class: 'card', 'aria-labelledby': 'usage-title' });
  root.append(
    createForm(() => showKeys(listHost)),
    listHost,
    usageHost,
  );
  await Promise.all([showKeys(listHost), showUsage(usageHost)]);
}

function createForm(reload: () => Promise<void>): HTMLElement {
  const name = input({ name: 'name', required: true, maxlength: 100 });
  const role = select(['client', 'admin'], { name: 'role' });
  const perDay = input({ type: 'number', name: 'requests_per_day', min: 0, placeholder: 'no limit' });
  const perMonth = input({ type: 'number', name: 'characters_per_month', min: 0, placeholder: 'no limit' });
  const shown = h('div', { 'aria-live': 'polite' });
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'create-title' },
    h('h3', { id: 'create-title' }, 'Create a key'),
    h(
      'div',
      { class: 'row' },
      field('Name', name),
      field('Role', role),
      field('Requests per day', perDay),
      field('Characters per month', perMonth),
    ),
    h('button', { type: 'submit' }, 'Create key'),
    shown,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    api<ApiKey & { key: string }>('POST', '/api/admin/keys', {
      name: name.value,
      role: role.value,
      ...(perDay.value ? { requests_per_day: Number(perDay.value) } : {}),
      ...(perMonth.value ? { characters_per_month: Number(perMonth.value) } : {}),
    })
      .then(async (created) => {
        const key = h('output', { class: 'secret', id: 'new-key' }, created.key);
        fill(
          shown,
          h(
            'div',
            { class: 'notice ok', role: 'status' },
            h('p', {}, `Key "${created.name}" created. Copy it now: it is shown only this once.`),
            key,
          ),
        );
        form.reset();
        await reload();
      })
      .catch((err) => fill(shown, notice('error', describeError(err))));
  });
  return form;
}

async function showKeys(host: HTMLElement): Promise<void> {
  const { keys } = await api<{ keys: ApiKey[] }>('GET', '/api/admin/keys');
  const status = h('div', { 'aria-live': 'polite' });
  const revoke = (k: ApiKey) => {
    if (!window.confirm(`Revoke key "${k.name}" (${k.prefix}…)? Requests with it are refused at once.`))
      return;
    api('DELETE', `/api/admin/keys/${k.id}`)
      .then(() => showKeys(host))
      .catch((err) => fill(status, notice('error', describeError(err))));
  };
  fill(
    host,
    h('h3', { id: 'keys-title' }, 'Keys'),
    status,
    table(
      `${keys.length} key(s)`,
      [
        'Name',
        'Role',
        'Prefix',
        'Created',
        'Last used',
        'Characters today',
        'Characters this month',
        'State',
        '',
      ],
      keys.map((k) => [
        k.name,
        k.role,
        `${k.prefix}…`,
        time(k.created_at),
        time(k.last_used_at),
        characters(k.characters.today, k.characters.cached_today),
        characters(k.characters.month, k.characters.cached_month, k.characters_per_month),
        k.revoked_at ? badge(`revoked ${time(k.revoked_at)}`, 'bad') : badge('active', 'good'),
        k.revoked_at
          ? ''
          : h('button', { type: 'button', class: 'danger', onclick: () => revoke(k) }, `Revoke ${k.name}`),
      ]),
    ),
  );
}

/** `1,200 (+300 cached)` or `1,200 of 50,000 (+300 cached)`: engine characters, the budget, cache hits. */
function characters(translated: number, cached: number, limit?: number | null): string {
  const n = (value: number) => value.toLocaleString('en');
  const budget = limit === null || limit === undefined ? '' : ` of ${n(limit)}`;
  return `${n(translated)}${budget} (+${n(cached)} cached)`;
}

async function showUsage(host: HTMLElement): Promise<void> {
  try {
    const u = await api<Usage>('GET', '/api/admin/chat/usage');
    fill(
      host,
      h('h3', { id: 'usage-title' }, 'Chat usage per key'),
      h(
        'p',
        { class: 'muted' },
        `${time(u.since)} to ${time(u.until)} UTC: ${u.totals.requests} request(s), ${u.totals.total_tokens} token(s).`,
      ),
      table(
        'Usage by key and model',
        ['Key', 'Model', 'Requests', 'Tokens'],
        u.rows.map((r) => [r.key_name, r.model, String(r.requests), String(r.total_tokens)]),
      ),
    );
  } catch (err) {
    fill(host, h('h3', { id: 'usage-title' }, 'Chat usage per key'), notice('error', describeError(err)));
  }
}
