/**
 * Characters per key (issue 35) on real Postgres: counted by CharacterUsage, the path every
 * translation of a key takes, and read back through GET /api/v1/usage of the real gateway.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectDatabase, unconnectedDatabase, type Orm } from '@tp/db';
import { AppError, createLogger } from '@tp/runtime';
import type { Request } from 'express';
import { Registry } from 'prom-client';

import { startTestGateway, type TestGateway } from '../../test/gateway-fixture.js';
import type { Principal } from '../auth/api-key.store.js';
import { BudgetStore, NO_LIMITS, type KeyLimits } from '../keys/budgets/budget.store.js';
import { CharacterTally } from './character-tally.js';
import { CharacterUsage, charactersOf, type MeteredTranslation } from './character-usage.js';
import { readUsage, type UsageReport } from './read-usage.js';

let gateway: TestGateway;
let orm: Orm;
let usage: CharacterUsage;
let tally: CharacterTally;
let metrics: Registry;

beforeAll(async () => {
  gateway = await startTestGateway();
  // A second connection to the gateway's own database: what it counts, the gateway's route reads.
  orm = await connectDatabase({ url: gateway.config.DATABASE_URL, poolMax: 4 });
  metrics = new Registry();
  const budgets = new BudgetStore(orm);
  // A flush a test does not call itself would come after the test's own reads.
  tally = new CharacterTally(budgets, createLogger('test', 'silent'), 3_600_000);
  usage = new CharacterUsage(budgets, tally, metrics);
});

afterAll(async () => {
  await orm?.close(true);
  await gateway?.close();
});

const req = { headers: {} } as Request;

async function newKey(limits: Partial<KeyLimits> = {}): Promise<{ key: string; principal: Principal }> {
  const created = await gateway.store.create('client', 'usage', { limits });
  const principal = {
    keyId: created.id,
    name: created.name,
    role: created.role,
    limits: { ...NO_LIMITS, ...limits },
  };
  return { key: created.key, principal };
}

async function usageOf(key: string): Promise<UsageReport> {
  const res = await fetch(`${gateway.url}/api/v1/usage`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: UsageReport }).data;
}

/** A translation of `texts` whose results are as expected: every text translated by an engine. */
const engineWork = (texts: string[]): MeteredTranslation<string[]> => ({
  expected: { translated: charactersOf(texts), cached: 0 },
  run: () => Promise.resolve(texts.map((t) => t.toUpperCase())),
  actual: (result) => ({ translated: result ? charactersOf(texts) : 0, cached: 0 }),
});

describe('characters per key', () => {
  it('counts engine work and cache hits apart, per UTC day and month, in code points', async () => {
    const { key, principal } = await newKey();
    expect(await usageOf(key)).toMatchObject({
      character_count: 0,
      character_limit: null,
      day: { characters: 0, cached_characters: 0 },
      month: { characters: 0, cached_characters: 0, limit: null, remaining: null },
    });
    await usage.translate(principal, req, engineWork(['Good morning.', '軟體和滑鼠']));
    await usage.translate(principal, req, {
      expected: { translated: 0, cached: 4 },
      run: () => Promise.resolve('hit'),
      actual: () => ({ translated: 0, cached: 4 }),
    });
    // A key without a budget is counted in memory and written by the next flush.
    expect((await usageOf(key)).month.characters).toBe(0);
    await tally.flush();
    const report = await usageOf(key);
    // 13 + 5 code points (the Chinese text is 5 characters, 15 UTF-8 bytes).
    expect(report).toMatchObject({
      character_count: 18,
      day: { characters: 18, cached_characters: 4 },
      month: { characters: 18, cached_characters: 4 },
    });
    expect(Date.parse(report.day.resets_at)).toBeGreaterThan(Date.now());
    expect(Date.parse(report.month.resets_at)).toBeGreaterThanOrEqual(Date.parse(report.day.resets_at));
  });

  it('moves what the translator found in its cache to cached, and frees what failed', async () => {
    const { key, principal } = await newKey({ charactersPerMonth: 1000 });
    await usage.translate(principal, req, {
      expected: { translated: 30, cached: 0 },
      run: () => Promise.resolve('partly cached'),
      actual: () => ({ translated: 10, cached: 20 }),
    });
    const failed = usage.translate(principal, req, {
      expected: { translated: 50, cached: 0 },
      run: () => Promise.reject(new AppError('TRANSLATION_UNAVAILABLE', 'every engine failed')),
      actual: () => ({ translated: 0, cached: 0 }),
    });
    await expect(failed).rejects.toMatchObject({ code: 'TRANSLATION_UNAVAILABLE' });
    // The corrections follow the answer: wait for them.
    let report = await usageOf(key);
    for (let tries = 0; report.month.characters !== 10 && tries < 100; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      report = await usageOf(key);
    }
    expect(report.month).toMatchObject({
      characters: 10,
      cached_characters: 20,
      limit: 1000,
      remaining: 990,
    });
    expect(report.day).toMatchObject({ characters: 10, cached_characters: 20 });
  });
});

describe('the tally of keys without a budget', () => {
  it('sums the translations of a key in memory and writes them when the process stops', async () => {
    const { key, principal } = await newKey();
    await Promise.all(
      Array.from({ length: 50 }, () => usage.translate(principal, req, engineWork(['abcd']))),
    );
    await tally.stop();
    expect((await usageOf(key)).day).toMatchObject({ characters: 200, cached_characters: 0 });
  });

  it('counts nothing for a translation that failed', async () => {
    const { key, principal } = await newKey();
    const failed = usage.translate(principal, req, {
      expected: { translated: 10, cached: 0 },
      run: () => Promise.reject(new AppError('TRANSLATION_UNAVAILABLE', 'every engine failed')),
      actual: () => ({ translated: 0, cached: 0 }),
    });
    await expect(failed).rejects.toMatchObject({ code: 'TRANSLATION_UNAVAILABLE' });
    await tally.flush();
    expect((await usageOf(key)).month).toMatchObject({ characters: 0, cached_characters: 0 });
  });
});

describe('the monthly character budget', () => {
  it('runs exactly 5 of 20 parallel translations of 10 characters on a budget of 50', async () => {
    const { key, principal } = await newKey({ charactersPerMonth: 50 });
    let engineCalls = 0;
    const work = (): MeteredTranslation<string> => ({
      expected: { translated: 10, cached: 0 },
      run: () => {
        engineCalls += 1;
        return Promise.resolve('0123456789');
      },
      actual: (result) => ({ translated: result ? 10 : 0, cached: 0 }),
    });
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => usage.translate(principal, req, work())),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
    expect(engineCalls).toBe(5);
    for (const r of results) {
      if (r.status === 'rejected') {
        expect(r.reason).toMatchObject({
          code: 'QUOTA_EXCEEDED',
          details: { budget: 'characters_per_month', limit: 50, requested: 10, remaining: 0 },
        });
      }
    }
    expect((await usageOf(key)).month).toMatchObject({ characters: 50, limit: 50, remaining: 0 });
  });

  it('refuses a request larger than what is left, with a Retry-After until the month ends, and still serves cache hits', async () => {
    const { principal } = await newKey({ charactersPerMonth: 12 });
    await usage.translate(principal, req, engineWork(['0123456789']));
    const refused = await usage.translate(principal, req, engineWork(['abc'])).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(AppError);
    const error = refused as AppError;
    expect(error.details).toMatchObject({ budget: 'characters_per_month', remaining: 2, requested: 3 });
    expect(error.message).toContain('2 of its 12 characters per month left');
    const wait = Number(error.headers?.['Retry-After']);
    const resetsAt = (error.details as { resets_at: string }).resets_at;
    const untilMonthEnd = (Date.parse(resetsAt) - Date.now()) / 1000;
    expect(Math.abs(wait - untilMonthEnd)).toBeLessThan(5);
    // Two characters still fit; cache hits are free whatever is left.
    await expect(usage.translate(principal, req, engineWork(['ab']))).resolves.toEqual(['AB']);
    await expect(
      usage.translate(principal, req, {
        expected: { translated: 0, cached: 500 },
        run: () => Promise.resolve('hit'),
        actual: () => ({ translated: 0, cached: 500 }),
      }),
    ).resolves.toBe('hit');
  });

  it('refuses a text larger than the whole budget without counting anything', async () => {
    const { key, principal } = await newKey({ charactersPerMonth: 5 });
    const refused = await usage
      .translate(principal, req, engineWork(['123456']))
      .catch((err: unknown) => err);
    expect(refused).toMatchObject({ code: 'QUOTA_EXCEEDED', details: { remaining: 5, requested: 6 } });
    expect((await usageOf(key)).month).toMatchObject({ characters: 0, remaining: 5 });
  });

  it('counts anonymous requests in the metrics only, and refusals there too', async () => {
    const { principal } = await newKey({ charactersPerMonth: 0 });
    await expect(usage.translate(principal, req, engineWork(['four']))).rejects.toMatchObject({
      code: 'QUOTA_EXCEEDED',
    });
    await usage.translate(undefined, req, engineWork(['four']));
    const text = await metrics.metrics();
    expect(text).toContain('translation_characters_total{kind="translated",caller="anonymous"} 4');
    expect(text).toMatch(/translation_character_budget_refusals_total [1-9]/);
  });
});

describe('reading usage without Postgres', () => {
  it('answers 503 DEPENDENCY_UNAVAILABLE without the driver message', async () => {
    // A closed port: the driver fails to connect.
    const down = await unconnectedDatabase({ url: 'postgres://postgres@127.0.0.1:9/none' });
    const { principal } = await newKey();
    const failed = await readUsage(new BudgetStore(down), principal).catch((err: unknown) => err);
    await down.close(true);
    expect(failed).toBeInstanceOf(AppError);
    expect(failed).toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE', httpStatus: 503, details: undefined });
  });
});

describe('setting the budget', () => {
  it('is set and removed by PATCH /api/admin/keys/{id} and shown by /usage and /me', async () => {
    const { id, key } = await gateway.store.create('client', 'patched');
    const patch = (body: object) =>
      fetch(`${gateway.url}/api/admin/keys/${id}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${gateway.keys.admin}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const set = await patch({ characters_per_month: 500_000 });
    expect(((await set.json()) as { data: object }).data).toMatchObject({ characters_per_month: 500_000 });
    expect(await usageOf(key)).toMatchObject({ character_limit: 500_000, month: { remaining: 500_000 } });
    const me = await fetch(`${gateway.url}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } });
    expect(((await me.json()) as { data: { budgets: object } }).data.budgets).toMatchObject({
      characters_per_month: { limit: 500_000, used: 0, remaining: 500_000 },
    });
    for (const bad of [
      { characters_per_month: -1 },
      { characters_per_month: 2.5 },
      { characters_per_month: '9' },
    ]) {
      expect((await patch(bad)).status).toBe(400);
    }
    await patch({ characters_per_month: null });
    expect(await usageOf(key)).toMatchObject({
      character_limit: null,
      month: { limit: null, remaining: null },
    });
  });
});
