import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { startNliWithTinyModel, type TestNli } from '../../../nli/test/nli-fixture.js';
import { startTestGateway, type TestGateway } from '../../test/gateway-fixture.js';

// The gateway in front of the real nli service running the tiny NLI model (docs/models.md): a text
// naming one concept scores about 0.97 for it, a text naming two about 0.49 for each.
let gateway: TestGateway;
let nli: TestNli;
const NLI_MAX_TEXT_CHARS = 60;

beforeAll(async () => {
  nli = await startNliWithTinyModel({ NLI_MAX_TEXT_CHARS: String(NLI_MAX_TEXT_CHARS) });
  gateway = await startTestGateway({ NLI_URL: nli.url, NLI_MAX_TEXT_CHARS: String(NLI_MAX_TEXT_CHARS) });
});

afterAll(async () => {
  await gateway?.close();
  await nli?.close();
});

async function call(method: string, path: string, key: string, body?: unknown) {
  const res = await fetch(`${gateway.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return {
    status: res.status,
    body: (await res.json()) as { code: number; data?: Record<string, unknown>; error?: string },
  };
}

const detect = (text: string) => call('POST', '/api/v1/moderate/nli', gateway.keys.client, { text });
const setConfig = (body: unknown) => call('PUT', '/api/admin/nli/config', gateway.keys.admin, body);

describe('NLI through the gateway', () => {
  it('flags a violent text and passes a harmless one', async () => {
    const violent = await detect('they will kill him with a gun');
    expect(violent.status).toBe(200);
    expect(violent.body.data).toMatchObject({ is_safe: false, label: 'violence', risk_level: 'high' });
    const harmless = await detect('I like green tea');
    expect(harmless.body.data).toMatchObject({ is_safe: true, label: 'safe content', risk_level: 'none' });
  });

  it('applies a threshold change from the admin API on the next call', async () => {
    const text = 'I hate spam';
    await setConfig({ candidate_labels: ['hate speech', 'spam', 'safe content'], threshold: 0.5 });
    const before = await detect(text);
    expect(before.body.data).toMatchObject({ is_safe: true });
    expect(before.body.data?.score as number).toBeLessThan(0.5);

    expect((await setConfig({ threshold: 0.4 })).status).toBe(200);
    const after = await detect(text);
    expect(after.body.data).toMatchObject({ is_safe: false, threshold: 0.4 });
  });

  it('says explicitly that NLI is disabled instead of calling a text safe', async () => {
    await setConfig({ enabled: false });
    const res = await detect('they will kill him');
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 40901, error: 'NLI_DISABLED' });
    await setConfig({ enabled: true });
  });

  it('passes the nli service validation errors through with their details', async () => {
    const res = await call('POST', '/api/admin/nli/test', gateway.keys.admin, {
      text: 'x',
      candidate_labels: ['a', 'a'],
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'VALIDATION_FAILED' });
  });

  it.each([
    ['malformed JSON', '{"text": ', 'MALFORMED_JSON'],
    ['a JSON string', '"they will kill him"', 'MALFORMED_JSON'],
    ['an empty text', { text: '' }, 'VALIDATION_FAILED'],
    ['an unknown field', { text: 'tea', extra: 1 }, 'VALIDATION_FAILED'],
    ['an array', [{ text: 'tea' }], 'VALIDATION_FAILED'],
    ['a text over the limit', { text: 'x'.repeat(NLI_MAX_TEXT_CHARS + 1) }, 'VALIDATION_FAILED'],
  ])('answers %s with 400 %s', async (_label, body, error) => {
    const res = await fetch(`${gateway.url}/api/v1/moderate/nli`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${gateway.keys.client}`,
        'content-type': 'application/json',
        'x-request-id': 'nli-bad-1',
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error, request_id: 'nli-bad-1' });
  });

  it('reports the status with the model named as a test model', async () => {
    const res = await call('GET', '/api/admin/nli/status', gateway.keys.admin);
    expect(res.body.data).toMatchObject({ online: true, model_ready: true, test_model: true });
  });
});

describe('NLI with the nli service down', () => {
  let offline: TestGateway;
  beforeAll(async () => {
    offline = await startTestGateway({ NLI_URL: 'http://127.0.0.1:9' });
  });
  afterAll(async () => {
    await offline?.close();
  });

  it('answers 503 NLI_UNAVAILABLE to a moderation request, never a verdict', async () => {
    const res = await fetch(`${offline.url}/api/v1/moderate/nli`, {
      method: 'POST',
      headers: { authorization: `Bearer ${offline.keys.client}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'anything' }),
    });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ code: 50305, error: 'NLI_UNAVAILABLE' });
  });

  it('reports online: false on the admin status', async () => {
    const res = await fetch(`${offline.url}/api/admin/nli/status`, {
      headers: { authorization: `Bearer ${offline.keys.admin}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ data: { online: false, model_ready: false } });
  });
});
