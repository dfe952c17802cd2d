import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { startNliWithTinyModel, startTestNli, tinyNliModel, type TestNli } from '../../test/nli-fixture.js';
import { waitFor } from '@tp/test/harness/wait';
import type { Detection } from './detect-text.js';

/**
 * The default configuration (migration): candidates violence, hate speech, sexual content,
 * harassment, self-harm, safe content; safe: safe content; threshold 0.5. The tiny model gives
 * entailment 5 to each label whose concept the text names (safe content when it names none), else 0.
 */
const E5 = Math.exp(5);
const ONE_CONCEPT = E5 / (E5 + 5);
const TWO_CONCEPTS = E5 / (2 * E5 + 4);

describe('POST /detect with the tiny model and the default configuration', () => {
  let nli: TestNli;

  beforeAll(async () => {
    nli = await startNliWithTinyModel();
  });

  afterAll(async () => {
    await nli?.close();
  });

  it('flags a violent text with high risk', async () => {
    const { status, body } = await nli.post<Detection>('/detect', { text: 'They will kill him with a gun' });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      is_safe: false,
      risk_level: 'high',
      label: 'violence',
      threshold: 0.5,
      model: 'tiny-nli',
      cached: false,
    });
    expect(body.score).toBeCloseTo(ONE_CONCEPT, 6);
    expect(body.labels).toHaveLength(6);
    expect(body.scores.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
  });

  it('passes a harmless text, whose top label is the safe label, with no risk', async () => {
    const { body } = await nli.post<Detection>('/detect', { text: 'I like tea' });
    expect(body).toMatchObject({ is_safe: true, risk_level: 'none', label: 'safe content' });
    expect(body.score).toBeCloseTo(ONE_CONCEPT, 6);
  });

  it('answers a repeated text from the cache', async () => {
    await nli.post('/detect', { text: 'click here for a lottery discount' });
    const { body } = await nli.post<Detection>('/detect', { text: 'click here for a lottery discount' });
    expect(body).toMatchObject({ cached: true, is_safe: true });
  });

  it('applies a new threshold on the next call, cached classification or not', async () => {
    const text = 'I hate you and I will kill you';
    const before = await nli.post<Detection>('/detect', { text });
    // Two concepts share the probability: each just under 0.5, so not a violation at 0.5.
    expect(before.body).toMatchObject({
      is_safe: true,
      risk_level: 'low',
      label: 'violence',
      threshold: 0.5,
    });
    expect(before.body.score).toBeCloseTo(TWO_CONCEPTS, 6);

    const put = await nli.put('/config', { threshold: 0.45 });
    expect(put.status).toBe(200);
    const after = await nli.post<Detection>('/detect', { text });
    expect(after.body).toMatchObject({ is_safe: false, risk_level: 'medium', threshold: 0.45, cached: true });

    await nli.put('/config', { threshold: 0.5 });
  });

  it('answers 409 NLI_DISABLED, never "safe", while moderation is disabled; /classify still works', async () => {
    expect((await nli.put('/config', { enabled: false })).status).toBe(200);
    const { status, body } = await nli.post('/detect', { text: 'I like tea' });
    expect(status).toBe(409);
    expect(body).toMatchObject({ code: 40901, error: 'NLI_DISABLED' });
    expect(body).not.toHaveProperty('is_safe');
    const classify = await nli.post('/classify', { text: 'I like tea', candidate_labels: ['safe content'] });
    expect(classify.status).toBe(200);

    await nli.put('/config', { enabled: true });
    expect((await nli.post('/detect', { text: 'I like tea' })).status).toBe(200);
  });

  it('uses the configured labels: a spam text is flagged once spam is a candidate', async () => {
    const text = 'click here for a lottery discount';
    // Spam is unsafe but not a candidate: no label fits, the six share the probability evenly.
    const before = await nli.post<Detection>('/detect', { text });
    expect(before.body).toMatchObject({ is_safe: true, risk_level: 'none' });
    expect(before.body.score).toBeCloseTo(1 / 6, 6);
    await nli.put('/config', { candidate_labels: ['spam', 'safe content'] });
    const { body } = await nli.post<Detection>('/detect', { text });
    expect(body).toMatchObject({ is_safe: false, label: 'spam', labels: ['spam', 'safe content'] });
  });

  it('refuses a malformed body with 400 VALIDATION_FAILED', async () => {
    for (const request of [{}, { text: '' }, { text: 'tea', extra: 1 }, { text: ['tea'] }]) {
      const { status, body } = await nli.post('/detect', request);
      expect(status).toBe(400);
      expect(body).toMatchObject({ code: 40002, error: 'VALIDATION_FAILED' });
    }
  });
});

describe('POST /detect in a second process on the same configuration', () => {
  let tiny: Awaited<ReturnType<typeof tinyNliModel>>;
  let first: TestNli;
  let second: TestNli;

  beforeAll(async () => {
    tiny = await tinyNliModel();
    first = await startTestNli({ NLI_MODEL_DIR: tiny.dir, ALLOW_TEST_MODELS: 'true' });
    second = await startTestNli({
      NLI_MODEL_DIR: tiny.dir,
      ALLOW_TEST_MODELS: 'true',
      DATABASE_URL: first.databaseUrl,
      NLI_CONFIG_CACHE_MS: '200',
    });
  });

  afterAll(async () => {
    await second?.close();
    await first?.close();
    await tiny?.remove();
  });

  it('applies a change made through the other process within NLI_CONFIG_CACHE_MS', async () => {
    const text = 'I hate you and I will kill you';
    expect((await second.post<Detection>('/detect', { text })).body.is_safe).toBe(true);
    await first.put('/config', { threshold: 0.4 });
    await waitFor(
      'the new threshold in the second process',
      async () => {
        const { body } = await second.post<Detection>('/detect', { text });
        return body.threshold === 0.4 && !body.is_safe;
      },
      2000,
    );
  });
});
