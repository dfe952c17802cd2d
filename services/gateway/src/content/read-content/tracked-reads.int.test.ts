import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { closeRedis, connectInBackground, createRedis, type RedisClient } from '@tp/redis';

import { silentLogger } from '@tp/test/harness/logger';
import { waitFor } from '@tp/test/harness/wait';
import { TrackedReads, type TrackedRead } from './tracked-reads.js';

// TrackedReads against the real Redis: what it trusts, and what a write by another connection, a key
// without expiry, or stopping does to that trust.
const prefix = `test:tracked-reads:${process.pid}:${Date.now()}:`;
let writer: RedisClient;
let tracked: TrackedReads;
const invalidated: (string | undefined)[] = [];

beforeAll(async () => {
  writer = createRedis({ url: process.env.REDIS_URL!, logger: silentLogger(), timeoutMs: 500 });
  connectInBackground(writer);
  await waitFor('redis ready', () => writer.isReady);
  tracked = new TrackedReads(writer, silentLogger(), 1000);
  tracked.listen((key) => invalidated.push(key));
  tracked.start();
  await waitFor('tracking connection ready', () => tracked.read(`${prefix}none`, 'f') !== undefined);
});

afterAll(async () => {
  await tracked.stop();
  const keys = await writer.keys(`${prefix}*`);
  if (keys.length > 0) await writer.del(keys);
  await closeRedis(writer);
});

/** A hash field written by the other connection, with `ttlMs` to live (undefined: no expiry). */
async function stored(name: string, value: string, ttlMs?: number): Promise<string> {
  const key = `${prefix}${name}`;
  await writer.hSet(key, 'en', value);
  if (ttlMs !== undefined) await writer.pExpire(key, ttlMs);
  return key;
}

async function read(key: string): Promise<TrackedRead | undefined> {
  const pending = tracked.read(key, 'en');
  if (!pending) throw new Error('the tracking connection is not ready');
  return pending;
}

describe('reads of the read cache tracked by Redis', () => {
  it('trusts a field read on the tracking connection until its key expires, not after', async () => {
    const key = await stored('expiring', 'v1', 60_000);
    const sent = performance.now();
    const found = await read(key);
    // The read takes its own send time between these two: its trust ends a TTL after it at most.
    const answered = performance.now();
    expect(found?.raw.toString()).toBe('v1');
    const until = tracked.trustedUntil(found!);
    expect(until).toBeGreaterThan(sent + 50_000);
    expect(until).toBeLessThanOrEqual(answered + 60_000);
    expect(tracked.trusts(found!.session, until, performance.now())).toBe(true);
    expect(tracked.trusts(found!.session, until, until)).toBe(false);
  });

  it('hears of a key another connection writes after reading it, and does not trust the read', async () => {
    const key = await stored('written', 'v1', 60_000);
    const found = await read(key);
    await writer.hSet(key, 'en', 'v2');
    await waitFor('invalidation of the key', () => invalidated.includes(key));
    expect(tracked.trustedUntil(found!)).toBe(0);
    const again = await read(key);
    expect(again?.raw.toString()).toBe('v2');
    expect(tracked.trustedUntil(again!)).toBeGreaterThan(performance.now());
  });

  it('does not trust a key without expiry, and reads a missing field as undefined', async () => {
    const key = await stored('forever', 'v1');
    const found = await read(key);
    expect(found?.raw.toString()).toBe('v1');
    expect(tracked.trustedUntil(found!)).toBe(0);
    expect(await read(`${prefix}missing`)).toBeUndefined();
  });

  it('trusts nothing read before its connection dropped, and what it reads once reconnected', async () => {
    const name = `tracked-reads-test-${process.pid}-${Date.now()}`;
    const other = new TrackedReads(writer, silentLogger(), 1000, name);
    other.start();
    try {
      const key = await stored('dropped', 'v1', 60_000);
      await waitFor('tracking connection ready', () => other.read(key, 'en') !== undefined);
      const before = await other.read(key, 'en')!;
      const until = other.trustedUntil(before!);
      expect(other.trusts(before!.session, until, performance.now())).toBe(true);
      const connection = (await writer.clientList()).find((client) => client.name === name);
      await writer.sendCommand(['CLIENT', 'KILL', 'ID', String(connection!.id)]);
      await waitFor('the drop seen', () => !other.trusts(before!.session, until, performance.now()));
      await waitFor('reconnected', () => other.read(key, 'en') !== undefined);
      const after = await other.read(key, 'en')!;
      expect(other.trusts(after!.session, other.trustedUntil(after!), performance.now())).toBe(true);
      expect(after!.session).not.toBe(before!.session);
    } finally {
      await other.stop();
    }
  });

  it('trusts nothing once stopped, and leaves reads to the usual way', async () => {
    const key = await stored('stopped', 'v1', 60_000);
    const found = await read(key);
    const until = tracked.trustedUntil(found!);
    expect(tracked.trusts(found!.session, until, performance.now())).toBe(true);
    await tracked.stop();
    expect(tracked.trusts(found!.session, until, performance.now())).toBe(false);
    expect(tracked.read(key, 'en')).toBeUndefined();
  });
});
