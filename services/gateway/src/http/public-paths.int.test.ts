import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { startTestGateway, type TestGateway } from '../../test/gateway-fixture.js';

// Issue 16: what the public can do to a gateway without a key: no path grows /metrics, /ready and the
// docs are limited like other public routes, /metrics is for scrapers, and failed authentications are
// refused before they cost a Postgres query.
let open: TestGateway;
let limited: TestGateway;
let proxied: TestGateway;

beforeAll(async () => {
  [open, limited, proxied] = await Promise.all([
    startTestGateway({ RATE_LIMIT_PUBLIC: '0' }),
    startTestGateway({ RATE_LIMIT_PUBLIC: '3', AUTH_FAILURES_PER_MIN: '3', RATE_LIMIT_WINDOW_S: '86400' }),
    startTestGateway({ RATE_LIMIT_PUBLIC: '3', TRUST_PROXY: 'loopback', RATE_LIMIT_WINDOW_S: '86400' }),
  ]);
});

afterAll(async () => {
  await Promise.all([open?.close(), limited?.close(), proxied?.close()]);
});

const statusOf = async (url: string, init: RequestInit = {}) => {
  const res = await fetch(url, init);
  await res.arrayBuffer();
  return res.status;
};

describe('metric labels', () => {
  it('does not grow /metrics with 600 requests to made-up paths', async () => {
    const before = (await (await fetch(`${open.url}/metrics`)).text()).length;
    for (let n = 0; n < 300; n += 1) {
      await statusOf(`${open.url}/docs/x${n}`);
      await statusOf(`${open.url}/api/v1/vendors/%ZZ${n}`);
    }
    const after = await (await fetch(`${open.url}/metrics`)).text();
    expect(after).not.toContain('x299');
    expect(after).not.toContain('%ZZ');
    // A handful of new series (the unmatched and /docs labels with their statuses), not 600.
    expect(after.length - before).toBeLessThan(20_000);
  });
});

describe('/metrics and /ready for the public', () => {
  it('serves /metrics to a loopback scraper but not to a request relayed by a proxy', async () => {
    expect(await statusOf(`${open.url}/metrics`)).toBe(200);
    expect(await statusOf(`${open.url}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.9' } })).toBe(
      404,
    );
    expect(await statusOf(`${open.url}/metrics`, { headers: { forwarded: 'for=203.0.113.9' } })).toBe(404);
  });

  it('answers /ready with each state but no dependency error text', async () => {
    const res = await fetch(`${open.url}/ready`);
    const body = (await res.json()) as { dependencies: Record<string, { status: string; error?: string }> };
    // The translator and nli of this fixture are a closed port: down, and the reason is not shown.
    expect(body.dependencies.translator).toMatchObject({ status: 'down' });
    for (const dependency of Object.values(body.dependencies)) expect(dependency.error).toBeUndefined();
  });
});

describe('public paths are rate-limited per client address', () => {
  it('limits /ready, /docs, the OpenAPI document and unknown paths together', async () => {
    const statuses = [
      await statusOf(`${limited.url}/ready`),
      await statusOf(`${limited.url}/docs/`),
      await statusOf(`${limited.url}/nothing-here`),
      await statusOf(`${limited.url}/openapi.json`),
      await statusOf(`${limited.url}/docs/swagger-ui.css`),
    ];
    expect(statuses.slice(0, 3)).not.toContain(429);
    expect(statuses.slice(3)).toEqual([429, 429]);
    // Liveness stays answerable for the load balancer.
    expect(await statusOf(`${limited.url}/health`)).toBe(200);
  });
});

describe('failed authentication', () => {
  const me = (key: string) =>
    statusOf(`${limited.url}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } });

  it('answers 429 without a key lookup once an address failed AUTH_FAILURES_PER_MIN times', async () => {
    const unknown = `tp_${'A'.repeat(43)}`;
    expect([await me(unknown), await me(unknown), await me(limited.keys.revoked)]).toEqual([401, 401, 401]);
    expect(await me(unknown)).toBe(429);
    // Not looked up at all: even a valid key from this address waits for the minute to end.
    expect(await me(limited.keys.client)).toBe(429);
  });
});

describe('TRUST_PROXY', () => {
  const languages = (forwardedFor: string) =>
    statusOf(`${proxied.url}/api/v1/translate/languages`, { headers: { 'x-forwarded-for': forwardedFor } });

  it('believes only the hop the trusted proxy added: client-made entries before it mint no new address', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i += 1) statuses.push(await languages(`10.0.0.${i}, 198.51.100.7`));
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(await languages('198.51.100.8')).toBe(200);
  });

  it('without TRUST_PROXY, X-Forwarded-For is ignored', async () => {
    // The address spends its budget of 3 here (what the tests above left of it, at most 3 requests).
    const url = `${limited.url}/api/v1/translate/languages`;
    for (let i = 0; i < 4 && (await statusOf(url)) !== 429; i += 1);
    expect(await statusOf(url)).toBe(429);
    const statuses = [];
    for (let i = 0; i < 4; i += 1) {
      statuses.push(
        await statusOf(`${limited.url}/api/v1/translate/languages`, {
          headers: { 'x-forwarded-for': `198.51.100.${i}` },
        }),
      );
    }
    // Each a new address if the header were believed: all refused, the address is the connection's.
    expect(statuses).toEqual([429, 429, 429, 429]);
  });

  describe('OpenAI-shaped auth errors', () => {
    it("answers a bad key on /v1 with OpenAI's own code invalid_api_key", async () => {
      const res = await fetch(`${open.url}/v1/models`, {
        headers: { authorization: `Bearer tp_${'B'.repeat(43)}` },
      });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({
        error: { code: 'invalid_api_key', type: 'authentication_error' },
      });
    });
  });
});

describe('text limits of POST /api/v1/translate', () => {
  const translate = (text: string, headers: Record<string, string> = {}) =>
    fetch(`${open.url}/api/v1/translate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ text, source: 'en', target: 'de' }),
    });

  it('holds anonymous requests to 5000 characters and lets a key of any role send more', async () => {
    const long = 'a'.repeat(5001);
    const anonymous = await translate(long);
    expect(anonymous.status).toBe(413);
    expect(await anonymous.json()).toMatchObject({ error: 'TEXT_TOO_LONG', details: { max: 5000 } });
    const invalidKey = await translate(long, { authorization: `Bearer tp_${'C'.repeat(43)}` });
    expect(invalidKey.status).toBe(401);
    expect(await invalidKey.json()).toMatchObject({ error: 'API_KEY_INVALID' });
    // With a key the text passes the limit; the translator of this fixture is down, hence 503.
    const keyed = await translate(long, { authorization: `Bearer ${open.keys.client}` });
    expect(keyed.status).toBe(503);
    expect(await keyed.json()).toMatchObject({ error: 'TRANSLATOR_UNAVAILABLE' });
  });
});
