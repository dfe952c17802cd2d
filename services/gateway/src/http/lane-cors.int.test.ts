import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectDatabase, type Orm } from '@tp/db';
import { HotCache } from '@tp/translation';
import { createClient } from 'redis';

import { startNliWithTinyModel, type TestNli } from '../../../nli/test/nli-fixture.js';
import { seedSource, seedTranslation } from '../../test/content-seed.js';
import { startTestGateway, type TestGateway } from '../../test/gateway-fixture.js';

// With CORS_ORIGINS set, the fast lanes (read cache, translate hits, NLI checks) still answer, with
// the CORS headers Express's cors middleware gives the same request: each lane's answer is compared
// with Express's answer to the same request (kept off the lane by a header the lane never takes),
// for an allowed origin, another origin and none, with a list of origins and with `*`. The lanes'
// own counters show which path answered.
const ALLOWED = 'https://app.example.com';
const OTHER = 'https://evil.example.com';

let nli: TestNli;
const redis = createClient({ url: process.env.REDIS_URL });

beforeAll(async () => {
  nli = await startNliWithTinyModel();
  await redis.connect();
});

afterAll(async () => {
  await redis.close();
  await nli?.close();
});

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
}

/** The answer's headers, without what differs between two requests by design. */
async function answerOf(res: Response): Promise<Answer> {
  await res.arrayBuffer();
  const {
    date: _date,
    'x-request-id': _id,
    'ratelimit-remaining': _remaining,
    'ratelimit-reset': _reset,
    // The translate answer's `duration` differs, and with it the length.
    'content-length': _length,
    ...headers
  } = Object.fromEntries(res.headers);
  return { status: res.status, headers };
}

describe.each([
  ['a list of origins', `${ALLOWED},https://two.example.com`],
  ['any origin', '*'],
])('the fast lanes with CORS_ORIGINS of %s', (_label, origins) => {
  let gateway: TestGateway;
  let orm: Orm;
  let key: string;

  beforeAll(async () => {
    gateway = await startTestGateway({ CORS_ORIGINS: origins, NLI_URL: nli.url, API_KEY_CACHE_MS: '600000' });
    orm = await connectDatabase({ url: gateway.config.DATABASE_URL, poolMax: 2 });
    await seedSource(orm, { type: 'vendor', id: 'v-1' }, { name: '华为' });
    await seedTranslation(orm, { type: 'vendor', id: 'v-1', field: 'name', lang: 'en' }, 'Huawei', '华为');
    await new HotCache(redis as never, gateway.config.REDIS_KEY_PREFIX).store(
      { source: 'zh-CN', target: 'en', text: '早上好' },
      { translatedText: 'good morning', source: 'zh-CN', engine: 'deepl', cachedAt: '', truncated: false },
    );
    key = gateway.keys.client;
    // Remembered by the process, and the read cache filled: both through Express.
    expect((await read({})).status).toBe(200);
  });

  afterAll(async () => {
    await orm?.close(true);
    await gateway?.close();
  });

  const read = (headers: Record<string, string>, path = '/api/v1/vendors/v-1') =>
    fetch(`${gateway.url}${path}`, {
      headers: { authorization: `Bearer ${key}`, 'x-language': 'en', ...headers },
    });
  const post = (path: string, body: unknown, headers: Record<string, string>) =>
    fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const metric = async (name: string) => {
    const text = await (await fetch(`${gateway.url}/metrics`)).text();
    const found = new RegExp(`^${name}\\{[^}]*outcome="answered"[^}]*\\} (\\S+)$`, 'm').exec(text);
    return Number(found?.[1] ?? 0);
  };

  // What keeps a request off the lane: a query (reads), a content-encoding (posts).
  const lanes = [
    {
      lane: 'the read-cache lane',
      counter: 'gateway_read_lane_requests_total',
      viaLane: (origin: Record<string, string>) => read(origin),
      viaExpress: (origin: Record<string, string>) => read(origin, '/api/v1/vendors/v-1?meta=false'),
    },
    {
      lane: 'the translate lane',
      counter: undefined,
      viaLane: (origin: Record<string, string>) =>
        post('/api/v1/translate', { text: '早上好', target: 'en' }, origin),
      viaExpress: (origin: Record<string, string>) =>
        post(
          '/api/v1/translate',
          { text: '早上好', target: 'en' },
          { ...origin, 'content-encoding': 'identity' },
        ),
    },
    {
      lane: 'the nli lane',
      counter: 'gateway_nli_lane_requests_total',
      viaLane: (origin: Record<string, string>) =>
        post('/api/v1/moderate/nli', { text: 'hello' }, { ...origin, authorization: `Bearer ${key}` }),
      viaExpress: (origin: Record<string, string>) =>
        post(
          '/api/v1/moderate/nli',
          { text: 'hello' },
          { ...origin, authorization: `Bearer ${key}`, 'content-encoding': 'identity' },
        ),
    },
  ];

  it.each(lanes.flatMap((lane) => [ALLOWED, OTHER, undefined].map((origin) => ({ ...lane, origin }))))(
    '$lane answers origin $origin with the CORS headers Express gives',
    async ({ counter, viaLane, viaExpress, origin }) => {
      const headers: Record<string, string> = origin === undefined ? {} : { origin };
      const before = counter ? await metric(counter) : 0;
      const lane = await answerOf(await viaLane(headers));
      if (counter) expect(await metric(counter)).toBe(before + 1);
      const express = await answerOf(await viaExpress(headers));
      if (counter) expect(await metric(counter)).toBe(before + 1);

      expect(lane.status).toBe(200);
      expect(lane).toEqual(express);
      expect(lane.headers['access-control-expose-headers']).toBe('x-request-id,retry-after,content-language');
      const allowed = origins === '*' ? '*' : origin === ALLOWED ? ALLOWED : undefined;
      expect(lane.headers['access-control-allow-origin']).toBe(allowed);
    },
  );

  it('leaves the preflight to Express', async () => {
    const res = await fetch(`${gateway.url}/api/v1/vendors/v-1`, {
      method: 'OPTIONS',
      headers: { origin: ALLOWED, 'access-control-request-method': 'GET' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-methods')).toBe('GET,HEAD,PUT,PATCH,POST,DELETE');
    expect(res.headers.get('access-control-max-age')).toBe('600');
  });
});
