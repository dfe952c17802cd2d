import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { startNliWithTinyModel, startTestNli, tinyNliModel, type TestNli } from '../../test/nli-fixture.js';

interface StatusReply {
  model_ready: boolean;
  model_id: string | null;
  test_model: boolean;
  model_error?: string;
  candidate_labels: string[];
  safe_labels: string[];
  threshold: number;
  enabled: boolean;
  cache: { hits: number; misses: number };
}

/** The value of the nli_model_ready gauge on GET /metrics. */
async function modelReadyGauge(nli: TestNli): Promise<string | undefined> {
  const text = await (await fetch(`${nli.url}/metrics`)).text();
  return text.match(/^nli_model_ready(?:\{[^}]*\})? (\d+)$/m)?.[1];
}

interface ReadyReply {
  status: string;
  dependencies: Record<string, { status: string; required: boolean; error?: string; reason?: string }>;
}

describe('the nli service with a usable model', () => {
  let nli: TestNli;

  beforeAll(async () => {
    nli = await startNliWithTinyModel();
  });

  afterAll(async () => {
    await nli?.close();
  });

  it('is ready (nli_model_ready 1), and its status names the model as a test model with the configuration in use', async () => {
    const ready = await nli.get<ReadyReply>('/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.dependencies.model).toMatchObject({ status: 'up', required: false });
    expect(await modelReadyGauge(nli)).toBe('1');
    const { status, body } = await nli.get<StatusReply>('/status');
    expect(status).toBe(200);
    expect(body).toEqual({
      model_ready: true,
      model_id: 'tiny-nli',
      test_model: true,
      candidate_labels: [
        'violence',
        'hate speech',
        'sexual content',
        'harassment',
        'self-harm',
        'safe content',
      ],
      safe_labels: ['safe content'],
      threshold: 0.5,
      enabled: true,
      cache: { hits: 0, misses: 0 },
    });
  });
});

describe('the nli service without a usable model', () => {
  let tiny: Awaited<ReturnType<typeof tinyNliModel>>;
  const started: TestNli[] = [];

  beforeAll(async () => {
    tiny = await tinyNliModel();
  });

  afterAll(async () => {
    for (const nli of started) await nli.close();
    await tiny?.remove();
  });

  const start = async (settings: Record<string, string>) => {
    const nli = await startTestNli(settings);
    started.push(nli);
    return nli;
  };

  /**
   * Ready with the model degraded on /ready (the service answers), nli_model_ready 0 on /metrics, and
   * 503 NLI_MODEL_NOT_READY with the reason on both classification routes.
   */
  async function expectDegraded(nli: TestNli, reason: string): Promise<void> {
    const ready = await nli.get<ReadyReply>('/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ready');
    expect(ready.body.dependencies.model).toMatchObject({ status: 'degraded', required: false });
    expect(ready.body.dependencies.model?.reason).toContain(reason);
    await expectRefused(nli, reason);
  }

  async function expectRefused(nli: TestNli, reason: string): Promise<void> {
    expect(await modelReadyGauge(nli)).toBe('0');
    for (const [path, request] of [
      ['/classify', { text: 'I like tea', candidate_labels: ['safe content'] }],
      ['/detect', { text: 'I like tea' }],
    ] as const) {
      const { status, body } = await nli.post<{ code: number; error: string; message: string }>(
        path,
        request,
      );
      expect(status).toBe(503);
      expect(body).toMatchObject({ code: 50304, error: 'NLI_MODEL_NOT_READY' });
      expect(body.message).toContain(reason);
    }
  }

  it('starts without NLI_MODEL_DIR, degraded, and answers 503 instead of guessing', async () => {
    const nli = await start({ NLI_MODEL_DIR: '' });
    await expectDegraded(nli, 'NLI_MODEL_DIR is empty');
    const { body } = await nli.get<StatusReply>('/status');
    expect(body).toMatchObject({ model_ready: false, model_id: null, test_model: false, enabled: true });
  });

  it('starts with a model folder that does not exist, degraded, pointing at models:pull', async () => {
    const nli = await start({ NLI_MODEL_DIR: join(tiny.dir, '..', 'mdeberta-not-installed') });
    await expectDegraded(nli, '`npm run models:pull -- nli` to add one');
    const { body } = await nli.get<StatusReply>('/status');
    expect(body).toMatchObject({ model_ready: false, model_id: 'mdeberta-not-installed' });
  });

  it('refuses the test model without ALLOW_TEST_MODELS, saying so, and names it a test model', async () => {
    const nli = await start({ NLI_MODEL_DIR: tiny.dir });
    await expectDegraded(nli, 'ALLOW_TEST_MODELS=true');
    const { body } = await nli.get<StatusReply>('/status');
    expect(body).toMatchObject({ model_ready: false, model_id: 'tiny-nli', test_model: true });
    expect(body.model_error).toContain('test model');
  });

  it('is not ready without its model with NLI_MODEL_REQUIRED, the model required and down', async () => {
    const nli = await start({ NLI_MODEL_DIR: '', NLI_MODEL_REQUIRED: 'true' });
    const ready = await nli.get<ReadyReply>('/ready');
    expect(ready.status).toBe(503);
    expect(ready.body.status).toBe('not_ready');
    expect(ready.body.dependencies.model).toMatchObject({ status: 'down', required: true });
    expect(ready.body.dependencies.model?.error).toContain('NLI_MODEL_DIR is empty');
    await expectRefused(nli, 'NLI_MODEL_DIR is empty');
  });

  it('still validates requests and serves the configuration', async () => {
    const nli = started[0] as TestNli;
    expect((await nli.post('/classify', { text: '' })).status).toBe(400);
    expect((await nli.get('/config')).status).toBe(200);
  });
});
