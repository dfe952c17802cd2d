import { describe, expect, it } from '@jest/globals';
import { OutboxMessage } from '@tp/db';
import { REPLAYED_FROM_HEADER, type NewDeadLetterEntry } from '@tp/pipeline';
import { EventCodec } from '@tp/schemas';

import { addDeadLetters, afterT0, deadLetter } from '@tp/test/harness/dead-letters';
import { useDeadLettersGateway } from '../../../test/dead-letters-fixture.js';

// The admin dead-letter routes on the real gateway (its own database), seeded through the index the
// worker fills. Every answer is checked against the OpenAPI document the gateway serves.
const codec = new EventCodec();
const BASE = '/api/admin/translate/dead-letters';
const fx = useDeadLettersGateway();

const at = (minutes: number) => afterT0(minutes).toISOString();

/** A dead letter failed `minutes` after T0; with `payload`, one that never decoded. */
const letter = (minutes: number, payload?: Buffer) =>
  deadLetter(codec, minutes, {
    originalPartition: 3,
    errorMessage: 'it failed',
    attempts: 2,
    ...(payload ? { payload, headers: {}, errorCode: 'MESSAGE_UNDECODABLE' } : {}),
  });

const seed = (...entries: NewDeadLetterEntry[]) => addDeadLetters(fx.index, entries);

interface Answer<T> {
  readonly status: number;
  readonly body: {
    readonly code: number;
    readonly data: T;
    readonly error?: string;
    readonly details?: { issues?: { path: string; message: string }[]; ids?: number[] };
  };
}

async function call<T = Record<string, unknown>>(
  method: 'get' | 'post',
  path: string,
  options: { query?: Record<string, string>; body?: unknown; key?: string } = {},
): Promise<Answer<T>> {
  const query = options.query ? `?${new URLSearchParams(options.query).toString()}` : '';
  const res = await fetch(`${fx.gateway.url}${path}${query}`, {
    method: method.toUpperCase(),
    headers: {
      authorization: `Bearer ${options.key ?? fx.gateway.keys.admin}`,
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const body = (await res.json()) as Answer<T>['body'];
  const documented = path.startsWith(`${BASE}/`) && !/\/(replay|purge)$/.test(path) ? `${BASE}/{id}` : path;
  fx.contract.check(method, documented, res.status, body);
  return { status: res.status, body };
}

const issuePaths = (answer: Answer<unknown>) => answer.body.details?.issues?.map((i) => i.path).sort();

interface Page {
  entries: { id: number; key: string; failed_at: string; error_code: string }[];
  total: number;
  next_before_id: number | null;
}

describe('GET /api/admin/translate/dead-letters', () => {
  it('lists entries newest first, page by page', async () => {
    const ids = await seed(letter(1), letter(2), letter(3));
    const first = await call<Page>('get', BASE, { query: { limit: '2' } });
    expect(first.status).toBe(200);
    expect(first.body.data.total).toBe(3);
    expect(first.body.data.entries.map((e) => e.id)).toEqual([ids[2], ids[1]]);
    expect(first.body.data.entries[0]).toMatchObject({
      original_topic: 'translation.requested.v1',
      original_partition: 3,
      key: expect.stringMatching(/^vendor:v-\d+:name:xx$/),
      consumer_group: 'translator.engines',
      error_code: 'UNSUPPORTED_LANGUAGE',
      attempts: 2,
      failed_at: at(3),
    });
    expect(first.body.data.next_before_id).toBe(ids[1]);
    const next = await call<Page>('get', BASE, {
      query: { limit: '2', before_id: String(first.body.data.next_before_id) },
    });
    expect(next.body.data.entries.map((e) => e.id)).toEqual([ids[0]]);
    expect(next.body.data.next_before_id).toBeNull();
  });

  it('filters on the failure time, from included and to excluded', async () => {
    const ids = await seed(letter(1), letter(2), letter(3));
    const page = await call<Page>('get', BASE, { query: { from: at(2), to: at(3) } });
    expect(page.body.data.entries.map((e) => e.id)).toEqual([ids[1]]);
    expect(page.body.data.total).toBe(3);
  });

  it('refuses a bad limit, before_id, a backwards range and unknown parameters with 400', async () => {
    const bad = await call('get', BASE, {
      query: { limit: '0', before_id: 'x', from: at(3), to: at(1), order: 'asc' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('VALIDATION_FAILED');
    expect(issuePaths(bad)).toEqual(['query', 'query.before_id', 'query.from', 'query.limit']);
    const backwards = await call('get', BASE, { query: { from: at(3), to: at(1) } });
    expect(issuePaths(backwards)).toEqual(['query.from']);
  });

  it('is for admin keys only', async () => {
    const denied = await call('get', BASE, { key: fx.gateway.keys.client });
    expect(denied.status).toBe(403);
  });
});

describe('GET /api/admin/translate/dead-letters/{id}', () => {
  it('shows an entry with its headers and the payload decoded', async () => {
    const [id] = await seed(letter(1));
    const { status, body } = await call<Record<string, unknown>>('get', `${BASE}/${id}`);
    expect(status).toBe(200);
    expect(body.data).toMatchObject({
      id,
      headers: { 'tp-event-type': 'TranslationRequested' },
      payload: {
        encoding: 'json',
        value: { eventType: 'TranslationRequested', data: { entityType: 'vendor', targetLang: 'xx' } },
      },
    });
  });

  it('shows a payload that does not decode as base64, with the reason', async () => {
    const [id] = await seed(letter(1, Buffer.from([1, 2, 3])));
    const { body } = await call<{ payload: unknown }>('get', `${BASE}/${id}`);
    expect(body.data.payload).toEqual({
      encoding: 'base64',
      value: 'AQID',
      decode_error: 'message has no tp-schema-fingerprint header',
    });
  });

  it('answers 404 DEAD_LETTER_NOT_FOUND for an unknown id, 400 for a malformed one', async () => {
    const [id] = await seed(letter(1));
    const unknown = await call('get', `${BASE}/${id! + 1}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 40404, error: 'DEAD_LETTER_NOT_FOUND' });
    const malformed = await call('get', `${BASE}/abc`);
    expect(malformed.status).toBe(400);
    expect(issuePaths(malformed)).toEqual(['params.id']);
  });
});

describe('POST /api/admin/translate/dead-letters/replay', () => {
  it('replays entries by id through the outbox and removes them from the index', async () => {
    const ids = await seed(letter(1), letter(2), letter(3));
    const entry = await fx.index.get(ids[0]!);
    const { status, body } = await call('post', `${BASE}/replay`, { body: { ids: [ids[0], ids[2]] } });
    expect(status).toBe(200);
    expect(body.data).toEqual({ selected: 2, replayed: 2, gone: 0, refused: [] });
    const rows = await fx.orm.em.fork().find(OutboxMessage, {}, { orderBy: { id: 'asc' } });
    expect(rows.map((r) => r.headers[REPLAYED_FROM_HEADER])).toEqual([String(ids[0]), String(ids[2])]);
    expect(rows[0]).toMatchObject({ topic: entry!.originalTopic, messageKey: entry!.messageKey!.toString() });
    expect(Buffer.from(rows[0]!.payload).equals(entry!.payload)).toBe(true);
    expect((await fx.index.list({ limit: 10 })).map((e) => e.id)).toEqual([ids[1]]);
  });

  it('replays a failure-time range, and all', async () => {
    await seed(letter(1), letter(2), letter(3));
    const range = await call('post', `${BASE}/replay`, { body: { from: at(2), to: at(9) } });
    expect(range.body.data).toMatchObject({ selected: 2, replayed: 2 });
    const all = await call('post', `${BASE}/replay`, { body: { all: true } });
    expect(all.body.data).toMatchObject({ selected: 1, replayed: 1 });
    expect(await fx.index.count()).toBe(0);
  });

  it('answers 404 DEAD_LETTER_NOT_FOUND naming unknown ids, and replays nothing', async () => {
    const [id] = await seed(letter(1));
    const { status, body } = await call('post', `${BASE}/replay`, { body: { ids: [id, id! + 7] } });
    expect(status).toBe(404);
    expect(body.error).toBe('DEAD_LETTER_NOT_FOUND');
    expect(body.details?.ids).toEqual([id! + 7]);
    expect(await fx.index.count()).toBe(1);
    expect(await fx.orm.em.fork().count(OutboxMessage, {})).toBe(0);
  });

  it.each([
    ['nothing', {}, ['body']],
    ['two selections', { ids: [1], all: true }, ['body']],
    ['from without to', { from: '2026-11-20T10:00:00Z' }, ['body.to']],
    ['a backwards range', { from: '2026-11-21T00:00:00Z', to: '2026-11-20T00:00:00Z' }, ['body.from']],
    ['all: false', { all: false }, ['body.all']],
    ['an empty id list', { ids: [] }, ['body.ids']],
    ['ids that are not ids', { ids: [0, 'x'] }, ['body.ids.0', 'body.ids.1']],
    ['an unknown field', { all: true, force: true }, ['body']],
  ])('refuses %s with 400 VALIDATION_FAILED', async (_label, body, paths) => {
    await seed(letter(1));
    const answer = await call('post', `${BASE}/replay`, { body });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('VALIDATION_FAILED');
    expect(issuePaths(answer)).toEqual(paths);
    expect(await fx.index.count()).toBe(1);
  });
});

describe('POST /api/admin/translate/dead-letters/purge', () => {
  it('deletes a failure-time range and nothing else, then all', async () => {
    const ids = await seed(letter(1), letter(2), letter(3), letter(4));
    const range = await call('post', `${BASE}/purge`, { body: { from: at(2), to: at(4) } });
    expect(range.status).toBe(200);
    expect(range.body.data).toEqual({ selected: 2, purged: 2, gone: 0 });
    expect((await fx.index.list({ limit: 10 })).map((e) => e.id)).toEqual([ids[3], ids[0]]);
    const all = await call('post', `${BASE}/purge`, { body: { all: true } });
    expect(all.body.data).toEqual({ selected: 2, purged: 2, gone: 0 });
    expect(await fx.orm.em.fork().count(OutboxMessage, {})).toBe(0);
  });

  it('deletes by id, and answers 404 for an unknown one', async () => {
    const ids = await seed(letter(1), letter(2));
    const purged = await call('post', `${BASE}/purge`, { body: { ids: [ids[1]] } });
    expect(purged.body.data).toEqual({ selected: 1, purged: 1, gone: 0 });
    const again = await call('post', `${BASE}/purge`, { body: { ids: [ids[1]] } });
    expect(again.status).toBe(404);
    expect(again.body.error).toBe('DEAD_LETTER_NOT_FOUND');
  });
});
