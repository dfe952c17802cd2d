import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { connectDatabase, insertIntoOutbox, OutboxMessage, type Orm } from '@tp/db';
import { EventCodec } from '@tp/schemas';

import { createTestDatabase, type TestDatabase } from '@tp/test/harness/databases';
import { addDeadLetters, afterT0, clearDeadLetters, deadLetter } from '@tp/test/harness/dead-letters';
import type { NewDeadLetterEntry } from './dead-letter-entry.js';
import { DeadLetterIndex, REPLAYED_FROM_HEADER } from './dead-letter-index.js';
import { payloadView } from './dead-letter-payload.js';
import type { BulkProgress } from './dead-letter-selection.js';

const codec = new EventCodec();
let db: TestDatabase;
let orm: Orm;

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await connectDatabase({ url: db.url, poolMax: 4 });
});

afterAll(async () => {
  await orm?.close(true);
  await db?.drop();
});

beforeEach(() => clearDeadLetters(orm));

const letter = (minutes = 0, overrides: Partial<NewDeadLetterEntry> = {}) =>
  deadLetter(codec, minutes, overrides);

describe('DeadLetterIndex.add', () => {
  it('keeps one entry when the same dead letter is indexed twice', async () => {
    const index = new DeadLetterIndex(orm);
    const entry = letter();
    expect(await index.add(entry)).toEqual({ added: true, evicted: 0 });
    expect(await index.add({ ...entry, failedAt: new Date() })).toEqual({ added: false, evicted: 0 });
    expect(await index.count()).toBe(1);
  });

  it('keeps one entry when the same event fails again at another offset (a duplicate delivery)', async () => {
    const index = new DeadLetterIndex(orm);
    const entry = letter();
    await index.add(entry);
    const again = { ...entry, originalOffset: entry.originalOffset + 1, failedAt: new Date() };
    expect(await index.add(again)).toEqual({ added: false, evicted: 0 });
    expect(await index.add({ ...again, originalPart: 'slogan' })).toMatchObject({ added: true });
    expect(await index.count()).toBe(2);
  });

  it('keeps messages without an event id by offset alone', async () => {
    const index = new DeadLetterIndex(orm);
    const entry = letter(0, { eventId: null });
    await index.add(entry);
    expect(await index.add({ ...entry, originalOffset: entry.originalOffset + 1 })).toMatchObject({
      added: true,
    });
    expect(await index.count()).toBe(2);
  });

  it("keeps one entry per part of a message (a request's fields dead-lettered one by one), each once", async () => {
    const index = new DeadLetterIndex(orm);
    const entry = letter();
    expect(await index.add({ ...entry, originalPart: 'name' })).toMatchObject({ added: true });
    expect(await index.add({ ...entry, originalPart: 'slogan' })).toMatchObject({ added: true });
    expect(await index.add({ ...entry, originalPart: 'slogan' })).toMatchObject({ added: false });
    expect(await index.count()).toBe(2);
  });

  it('keeps the same message once per consumer group', async () => {
    const index = new DeadLetterIndex(orm);
    const entry = letter();
    await index.add(entry);
    expect(await index.add({ ...entry, consumerGroup: 'worker.planner' })).toMatchObject({ added: true });
    expect(await index.count()).toBe(2);
  });

  it('evicts the oldest entries beyond the limit and says how many', async () => {
    const index = new DeadLetterIndex(orm, { maxEntries: 3 });
    const ids = await addDeadLetters(index, [letter(1), letter(2), letter(3)]);
    expect(await index.add(letter(4))).toEqual({ added: true, evicted: 1 });
    const kept = (await index.list({ limit: 10 })).map((e) => e.id);
    expect(kept).not.toContain(ids[0]);
    expect(kept.slice(1)).toEqual([ids[2], ids[1]]);
    expect(await index.count()).toBe(3);
  });

  it('evicts down to a lowered limit on the next add', async () => {
    await addDeadLetters(new DeadLetterIndex(orm), [letter(1), letter(2), letter(3), letter(4)]);
    expect(await new DeadLetterIndex(orm, { maxEntries: 2 }).add(letter(5))).toEqual({
      added: true,
      evicted: 3,
    });
  });
});

describe('DeadLetterIndex.list and get', () => {
  it('lists newest first, pages with beforeId, and filters on the failure time', async () => {
    const index = new DeadLetterIndex(orm);
    const ids = await addDeadLetters(index, [letter(1), letter(2), letter(3), letter(4)]);
    const first = await index.list({ limit: 2 });
    expect(first.map((e) => e.id)).toEqual([ids[3], ids[2]]);
    expect(first[0]).not.toHaveProperty('payload');
    const next = await index.list({ limit: 2, beforeId: first[1]!.id });
    expect(next.map((e) => e.id)).toEqual([ids[1], ids[0]]);
    const window = await index.list({
      limit: 10,
      from: afterT0(2),
      to: afterT0(4),
    });
    expect(window.map((e) => e.id)).toEqual([ids[2], ids[1]]);
  });

  it('gets one entry with its bytes, and decodes its payload for people', async () => {
    const index = new DeadLetterIndex(orm);
    const entry = letter();
    await index.add(entry);
    const [summary] = await index.list({ limit: 1 });
    const found = await index.get(summary!.id);
    expect(found).toMatchObject({ ...entry, id: summary!.id });
    expect(found!.payload.equals(entry.payload)).toBe(true);
    expect(payloadView(codec, found!.payload, found!.headers)).toMatchObject({
      encoding: 'json',
      value: { eventType: 'TranslationRequested', data: { targetLang: 'xx' } },
    });
    expect(await index.get(summary!.id + 1000)).toBeUndefined();
  });

  it('shows a payload that does not decode as base64, with the reason', () => {
    expect(payloadView(codec, Buffer.from('not avro'), {})).toEqual({
      encoding: 'base64',
      value: Buffer.from('not avro').toString('base64'),
      decodeError: 'message has no tp-schema-fingerprint header',
    });
  });
});

describe('DeadLetterIndex.replay', () => {
  it('writes the original topic, key, bytes and headers to the outbox and removes the entry', async () => {
    const index = new DeadLetterIndex(orm);
    const entry = letter();
    // The original event is still in the outbox (event_id is unique there): the replay must not clash.
    const original = codec.decode(entry.payload, entry.headers);
    await orm.em.fork().transactional(async (em) => {
      await insertIntoOutbox(em, codec, [{ topic: entry.originalTopic, key: 'k', event: original }]);
    });
    const [id] = await addDeadLetters(index, [entry]);

    expect(await index.replay({ ids: [id!] })).toEqual({ selected: 1, replayed: 1, gone: 0, refused: [] });

    const rows = await orm.em
      .fork()
      .find(OutboxMessage, { topic: entry.originalTopic }, { orderBy: { id: 'asc' } });
    expect(rows).toHaveLength(2);
    const replayed = rows[1]!;
    expect(replayed.topic).toBe('translation.requested.v1');
    expect(replayed.messageKey).toBe(entry.messageKey!.toString('utf8'));
    expect(Buffer.from(replayed.payload).equals(entry.payload)).toBe(true);
    expect(replayed.headers).toEqual({ ...entry.headers, [REPLAYED_FROM_HEADER]: String(id) });
    expect(replayed.eventId).not.toBe(entry.eventId);
    expect(replayed.eventType).toBe('TranslationRequested');
    expect(replayed.publishedAt).toBeNull();
    expect(await index.get(id!)).toBeUndefined();
  });

  it('replays nothing when an id is unknown, and names it', async () => {
    const index = new DeadLetterIndex(orm);
    const [id] = await addDeadLetters(index, [letter()]);
    await expect(index.replay({ ids: [id!, id! + 1] })).rejects.toMatchObject({
      code: 'DEAD_LETTER_NOT_FOUND',
      details: { ids: [id! + 1] },
    });
    expect(await index.count()).toBe(1);
    expect(await orm.em.fork().count(OutboxMessage, {})).toBe(0);
  });

  it('replays everything in batches, oldest first, and reports progress after each batch', async () => {
    const index = new DeadLetterIndex(orm, { batchSize: 2 });
    const ids = await addDeadLetters(index, [letter(1), letter(2), letter(3), letter(4), letter(5)]);
    const progress: BulkProgress[] = [];
    const outcome = await index.replay({ all: true }, (p) => progress.push(p));
    expect(outcome).toEqual({ selected: 5, replayed: 5, gone: 0, refused: [] });
    expect(progress).toEqual([
      { done: 2, total: 5 },
      { done: 4, total: 5 },
      { done: 5, total: 5 },
    ]);
    const rows = await orm.em.fork().find(OutboxMessage, {}, { orderBy: { id: 'asc' } });
    expect(rows.map((r) => r.headers[REPLAYED_FROM_HEADER])).toEqual(ids.map(String));
    expect(await index.count()).toBe(0);
  });

  it('keeps an entry whose key the outbox cannot carry, and says why', async () => {
    const index = new DeadLetterIndex(orm);
    const ids = await addDeadLetters(index, [
      letter(1, { messageKey: Buffer.from([0xff, 0xfe]) }),
      letter(2),
    ]);
    const outcome = await index.replay({ all: true });
    expect(outcome).toMatchObject({ selected: 2, replayed: 1, gone: 0 });
    expect(outcome.refused).toEqual([{ id: ids[0], reason: expect.stringContaining('not UTF-8') }]);
    expect((await index.list({ limit: 10 })).map((e) => e.id)).toEqual([ids[0]]);
  });

  it('replays a range of failure times, start included and end excluded', async () => {
    const index = new DeadLetterIndex(orm);
    const ids = await addDeadLetters(index, [letter(1), letter(2), letter(3)]);
    const outcome = await index.replay({ from: afterT0(1), to: afterT0(3) });
    expect(outcome).toMatchObject({ selected: 2, replayed: 2 });
    expect((await index.list({ limit: 10 })).map((e) => e.id)).toEqual([ids[2]]);
  });
});

describe('DeadLetterIndex.purge', () => {
  it('deletes a range of failure times and nothing else', async () => {
    const index = new DeadLetterIndex(orm, { batchSize: 1 });
    const ids = await addDeadLetters(index, [letter(1), letter(2), letter(3), letter(4)]);
    const progress: BulkProgress[] = [];
    const outcome = await index.purge({ from: afterT0(2), to: afterT0(4) }, (p) => progress.push(p));
    expect(outcome).toEqual({ selected: 2, purged: 2, gone: 0 });
    expect(progress).toEqual([
      { done: 1, total: 2 },
      { done: 2, total: 2 },
    ]);
    expect((await index.list({ limit: 10 })).map((e) => e.id)).toEqual([ids[3], ids[0]]);
    expect(await orm.em.fork().count(OutboxMessage, {})).toBe(0);
  });

  it('deletes by id and all', async () => {
    const index = new DeadLetterIndex(orm);
    const ids = await addDeadLetters(index, [letter(1), letter(2), letter(3)]);
    expect(await index.purge({ ids: [ids[1]!, ids[1]!] })).toEqual({ selected: 1, purged: 1, gone: 0 });
    expect(await index.purge({ all: true })).toEqual({ selected: 2, purged: 2, gone: 0 });
    expect(await index.purge({ all: true })).toEqual({ selected: 0, purged: 0, gone: 0 });
  });
});
