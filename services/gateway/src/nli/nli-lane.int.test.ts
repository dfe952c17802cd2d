import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { startNliWithTinyModel, type TestNli } from '../../../nli/test/nli-fixture.js';
import { startTestGateway, type TestGateway } from '../../test/gateway-fixture.js';

// The nli lane (nli-lane.ts) through the real gateway and the real nli service (tiny model): the
// same requests answered by the lane (a plain POST with a remembered key) and by the Express route
// (the same POST with `content-encoding: identity`, which the lane never takes), compared byte for byte. The
// gateway's own counter of the lane's outcomes shows which path answered.
let gateway: TestGateway;
let nli: TestNli;
const PER_KEY_LIMIT = 40;
const NLI_MAX_TEXT_CHARS = 60;
const PATH = '/api/v1/moderate/nli';

beforeAll(async () => {
  nli = await startNliWithTinyModel({ NLI_MAX_TEXT_CHARS: String(NLI_MAX_TEXT_CHARS) });
  gateway = await startTestGateway({
    NLI_URL: nli.url,
    API_KEY_CACHE_MS: '600000',
    RATE_LIMIT_PER_KEY: String(PER_KEY_LIMIT),
    // A window that does not roll over while the limit test runs.
    RATE_LIMIT_WINDOW_S: '3600',
  });
});

afterAll(async () => {
  await gateway?.close();
  await nli?.close();
});

/** A new client key made through the admin API. */
async function newKey(body: Record<string, unknown> = {}): Promise<string> {
  const res = await fetch(`${gateway.url}/api/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.keys.admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({ role: 'client', ...body }),
  });
  return ((await res.json()) as { data: { key: string } }).data.key;
}

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** POSTs `body` as it is (a string: for malformed bodies) to the route. */
async function post(key: string | undefined, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${gateway.url}${PATH}`, {
    method: 'POST',
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      'content-type': 'application/json',
      'x-request-id': 'nli-lane-1',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const { date: _date, ...rest } = Object.fromEntries(res.headers);
  return { status: res.status, headers: rest, body: await res.text() } satisfies Answer;
}
/** The same request through Express: the lane never takes a request with a content-encoding. */
const viaExpress = (key: string | undefined, body: unknown) =>
  post(key, body, { 'content-encoding': 'identity' });

async function metric(pattern: RegExp): Promise<number> {
  const text = await (await fetch(`${gateway.url}/metrics`)).text();
  return Number(pattern.exec(text)?.[1] ?? 0);
}
const lane = (outcome: string) =>
  metric(new RegExp(`^gateway_nli_lane_requests_total\\{[^}]*outcome="${outcome}"[^}]*\\} (\\S+)$`, 'm'));
/** How many requests the lane answered and handed over so far. */
const laneCounts = async (): Promise<[number, number]> => [await lane('answered'), await lane('handed_over')];

/**
 * The answer without what differs between two requests by design: the rate limit's remaining count
 * and the seconds to its reset, also in a 429's Retry-After and message (each request is counted
 * once: the 429 test below shows it).
 */
const comparable = ({
  headers: { 'ratelimit-remaining': remaining, 'ratelimit-reset': reset, 'retry-after': retry, ...headers },
  body,
  ...answer
}: Answer) => ({
  ...answer,
  headers,
  body: body.replace(/retry in \d+ s/, 'retry in N s'),
  limitHeaders: [remaining, reset, retry ?? '0'].map((v) => /^\d+$/.test(v ?? '')),
});

describe('the nli lane in front of Express', () => {
  it.each([['they will kill him with a gun'], ['I like green tea'], ['引号 "quoted" \\ and ✓']])(
    'answers a cache hit of %j as the Express route does',
    async (text) => {
      const key = await newKey();
      // The first call looks the key up (Express) and fills the nli cache.
      const first = await post(key, { text });
      expect(first.status).toBe(200);
      const [answered, handedOver] = await laneCounts();
      const byLane = await post(key, { text });
      expect(await laneCounts()).toEqual([answered + 1, handedOver]);
      const byExpress = await viaExpress(key, { text });
      expect(await laneCounts()).toEqual([answered + 1, handedOver]);
      expect(comparable(byLane)).toEqual(comparable(byExpress));
      expect(JSON.parse(byLane.body)).toMatchObject({ code: 0, data: { cached: true } });
      expect(byLane.headers['x-request-id']).toBe('nli-lane-1');
    },
  );

  it('counts its answers in the request metrics under the route', async () => {
    const key = await newKey();
    const count = () =>
      metric(
        /^http_request_duration_seconds_count\{[^}]*route="\/api\/v1\/moderate\/nli"[^}]*status="200"[^}]*\} (\S+)$/m,
      );
    await post(key, { text: 'I like green tea' });
    const [counted, [answered]] = [await count(), await laneCounts()];
    await post(key, { text: 'I like green tea' });
    expect((await laneCounts())[0]).toBe(answered + 1);
    expect(await count()).toBe(counted + 1);
  });

  it.each([
    ['malformed JSON', '{"text": ', 400, 'MALFORMED_JSON'],
    ['a JSON string', '"they will kill him"', 400, 'MALFORMED_JSON'],
    ['an empty text', { text: '' }, 400, 'VALIDATION_FAILED'],
    ['an unknown field', { text: 'tea', extra: 1 }, 400, 'VALIDATION_FAILED'],
    ['an array', [{ text: 'tea' }], 400, 'VALIDATION_FAILED'],
    ['a text over the nli limit', { text: 'x'.repeat(NLI_MAX_TEXT_CHARS + 1) }, 400, 'VALIDATION_FAILED'],
  ])('hands %s over to Express, which answers as the route does', async (_label, body, status, error) => {
    const key = await newKey();
    await post(key, { text: 'I like green tea' }); // remembered from here on
    const [answered, handedOver] = await laneCounts();
    const byLane = await post(key, body);
    expect(await laneCounts()).toEqual([answered, handedOver + 1]);
    const byExpress = await viaExpress(key, body);
    expect(comparable(byLane)).toEqual(comparable(byExpress));
    expect(byLane.status).toBe(status);
    expect(JSON.parse(byLane.body)).toMatchObject({ error, request_id: 'nli-lane-1' });
  });

  it('hands 409 NLI_DISABLED over to Express, the same answer as the route', async () => {
    const key = await newKey();
    await post(key, { text: 'I like green tea' });
    const config = (enabled: boolean) =>
      fetch(`${gateway.url}/api/admin/nli/config`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${gateway.keys.admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ enabled }),
      });
    expect((await config(false)).status).toBe(200);
    try {
      const byLane = await post(key, { text: 'I like green tea' });
      const byExpress = await viaExpress(key, { text: 'I like green tea' });
      expect(byLane.status).toBe(409);
      expect(comparable(byLane)).toEqual(comparable(byExpress));
      expect(JSON.parse(byLane.body)).toMatchObject({ error: 'NLI_DISABLED' });
    } finally {
      await config(true);
    }
  });

  it.each([
    ['no key', undefined, 'API_KEY_MISSING'],
    ['a key never seen', `tp_${'a'.repeat(43)}`, 'API_KEY_INVALID'],
  ])('leaves %s to Express, which answers 401', async (_label, key, error) => {
    const counts = await laneCounts();
    const res = await post(key, { text: 'I like green tea' });
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body)).toMatchObject({ error, request_id: 'nli-lane-1' });
    expect(await laneCounts()).toEqual(counts);
  });

  it("answers 429 RATE_LIMITED past the key's limit, counting each check once", async () => {
    const key = await newKey();
    const statuses: number[] = [];
    for (let i = 0; i < PER_KEY_LIMIT; i += 1) statuses.push((await post(key, { text: 'tea' })).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(PER_KEY_LIMIT);
    const [answered, handedOver] = await laneCounts();
    const byLane = await post(key, { text: 'tea' });
    expect(await laneCounts()).toEqual([answered, handedOver + 1]);
    const byExpress = await viaExpress(key, { text: 'tea' });
    expect(byLane.status).toBe(429);
    expect(byLane.headers['retry-after']).toMatch(/^\d+$/);
    expect(byLane.headers['ratelimit-remaining']).toBe('0');
    expect(comparable(byLane)).toEqual(comparable(byExpress));
    expect(JSON.parse(byLane.body)).toMatchObject({ error: 'RATE_LIMITED', request_id: 'nli-lane-1' });
  });

  it('leaves keys with a daily request budget to Express, which spends it', async () => {
    const key = await newKey({ requests_per_day: 2 });
    const counts = await laneCounts();
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await post(key, { text: 'tea' })).status);
    expect(statuses).toEqual([200, 200, 429]);
    expect(await laneCounts()).toEqual(counts);
  });
});
