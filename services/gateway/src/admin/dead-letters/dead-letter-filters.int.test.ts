import { describe, expect, it } from '@jest/globals';
import { OutboxMessage } from '@tp/db';
import { REPLAYED_FROM_HEADER, type NewDeadLetterEntry } from '@tp/pipeline';
import { EventCodec } from '@tp/schemas';

import { addDeadLetters, afterT0, deadLetter } from '@tp/test/harness/dead-letters';
import { useDeadLettersGateway } from '../../../test/dead-letters-fixture.js';

// Triage by kind of failure on the real gateway and its database: the dead-letter endpoints filter by
// error code, original topic and consumer group, and a dry run counts what a real run then takes.
// Every answer is checked against the OpenAPI document the gateway serves.

const codec = new EventCodec();
const BASE = '/api/admin/translate/dead-letters';
const fx = useDeadLettersGateway();

/** An engine failure of a translation request (the kind an operator replays once the engine is back). */
const engineFailure = (minutes: number) =>
  deadLetter(codec, minutes, { errorCode: 'TRANSLATION_FAILED', errorMessage: 'every engine failed' });
/** A poison message on content.changed.v1 (the kind that must stay until someone looks at it). */
const poison = (minutes: number): NewDeadLetterEntry =>
  deadLetter(codec, minutes, {
    originalTopic: 'content.changed.v1',
    consumerGroup: 'worker.content',
    errorCode: 'MESSAGE_UNDECODABLE',
    errorMessage: 'not an event',
    payload: Buffer.from([1, 2, 3]),
    headers: {},
  });

const ENGINE_KIND = { code: 'TRANSLATION_FAILED', topic: 'translation.requested.v1' };

interface Answer {
  readonly status: number;
  readonly body: { readonly data: Record<string, unknown>; readonly error?: string };
}

async function call(
  method: 'get' | 'post',
  path: string,
  input: Record<string, unknown> = {},
): Promise<Answer> {
  const query = method === 'get' ? `?${new URLSearchParams(input as Record<string, string>).toString()}` : '';
  const res = await fetch(`${fx.gateway.url}${path}${query}`, {
    method: method.toUpperCase(),
    headers: {
      authorization: `Bearer ${fx.gateway.keys.admin}`,
      ...(method === 'post' ? { 'content-type': 'application/json' } : {}),
    },
    ...(method === 'post' ? { body: JSON.stringify(input) } : {}),
  });
  const body = (await res.json()) as Answer['body'];
  fx.contract.check(method, path, res.status, body);
  return { status: res.status, body };
}

const remaining = async () => (await fx.index.list({ limit: 100 })).map((e) => e.errorCode).sort();

/** Three engine failures and two poison messages, interleaved in time (minutes 1 to 5). */
const fiveMixed = () => [engineFailure(1), poison(2), engineFailure(3), poison(4), engineFailure(5)];
describe('dead-letter triage by kind', () => {
  it('lists one kind with its count, and every kind present with theirs', async () => {
    await addDeadLetters(fx.index, [engineFailure(1), poison(2), engineFailure(3), poison(4), poison(5)]);
    const { status, body } = await call('get', BASE, ENGINE_KIND);
    expect(status).toBe(200);
    const entries = body.data.entries as { error_code: string; original_topic: string }[];
    expect(entries.map((e) => [e.error_code, e.original_topic])).toEqual([
      ['TRANSLATION_FAILED', 'translation.requested.v1'],
      ['TRANSLATION_FAILED', 'translation.requested.v1'],
    ]);
    expect(body.data).toMatchObject({ total: 5, matched: 2 });
    expect(body.data.kinds).toEqual([
      { code: 'MESSAGE_UNDECODABLE', topic: 'content.changed.v1', group: 'worker.content', count: 3 },
      {
        code: 'TRANSLATION_FAILED',
        topic: 'translation.requested.v1',
        group: 'translator.engines',
        count: 2,
      },
    ]);
    const byGroup = await call('get', BASE, { group: 'worker.content', limit: '2' });
    expect(byGroup.body.data).toMatchObject({ matched: 3 });
    expect(byGroup.body.data.entries).toHaveLength(2);
  });

  it('replays only one kind: the dry run counts it, the real run takes exactly that, the poison stays', async () => {
    await addDeadLetters(fx.index, fiveMixed());
    const dry = await call('post', `${BASE}/replay`, { ...ENGINE_KIND, dry_run: true });
    expect(dry.status).toBe(200);
    expect(dry.body.data).toEqual({ selected: 3, replayed: 0, gone: 0, refused: [], dry_run: true });
    expect(await fx.index.count()).toBe(5);
    expect(await fx.orm.em.fork().count(OutboxMessage, {})).toBe(0);

    const real = await call('post', `${BASE}/replay`, ENGINE_KIND);
    expect(real.body.data).toEqual({ selected: dry.body.data.selected, replayed: 3, gone: 0, refused: [] });
    expect(await remaining()).toEqual(['MESSAGE_UNDECODABLE', 'MESSAGE_UNDECODABLE']);
    const rows = await fx.orm.em.fork().find(OutboxMessage, {});
    expect(rows.map((r) => r.topic)).toEqual(Array(3).fill('translation.requested.v1'));
    expect(rows.every((r) => r.headers[REPLAYED_FROM_HEADER] !== undefined)).toBe(true);
  });

  it('narrows a failure-time range to one kind', async () => {
    await addDeadLetters(fx.index, fiveMixed());
    const range = { from: afterT0(2).toISOString(), to: afterT0(5).toISOString() };
    const real = await call('post', `${BASE}/replay`, { ...range, code: 'TRANSLATION_FAILED' });
    expect(real.body.data).toMatchObject({ selected: 1, replayed: 1 });
    expect(await fx.index.count({ filter: { code: 'TRANSLATION_FAILED' } })).toBe(2);
  });

  it('purges one consumer group: the dry run deletes nothing, the real run what it counted', async () => {
    await addDeadLetters(fx.index, [engineFailure(1), poison(2), poison(3)]);
    const dry = await call('post', `${BASE}/purge`, { group: 'worker.content', dry_run: true });
    expect(dry.body.data).toEqual({ selected: 2, purged: 0, gone: 0, dry_run: true });
    expect(await fx.index.count()).toBe(3);
    const real = await call('post', `${BASE}/purge`, { group: 'worker.content' });
    expect(real.body.data).toEqual({ selected: 2, purged: 2, gone: 0 });
    expect(await remaining()).toEqual(['TRANSLATION_FAILED']);
  });

  it('refuses ids with a kind filter, and an empty filter, with 400 VALIDATION_FAILED', async () => {
    const [id] = await addDeadLetters(fx.index, [poison(1)]);
    const withIds = await call('post', `${BASE}/replay`, { ids: [id], code: 'MESSAGE_UNDECODABLE' });
    expect(withIds.status).toBe(400);
    expect(withIds.body.error).toBe('VALIDATION_FAILED');
    const empty = await call('post', `${BASE}/purge`, { code: '' });
    expect(empty.status).toBe(400);
    expect(await fx.index.count()).toBe(1);
  });
});
