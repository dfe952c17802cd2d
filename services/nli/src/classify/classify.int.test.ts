import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { startNliWithTinyModel, type TestNli } from '../../test/nli-fixture.js';

interface ClassifyReply {
  sequence: string;
  labels: string[];
  scores: number[];
  model: string;
  cached: boolean;
}

interface ErrorReply {
  code: number;
  error: string;
  message: string;
  details?: { issues: { path: string; message: string; code: string }[] };
}

const GUN = 'They will kill him with a gun';
const LABELS = ['violence', 'hate speech', 'safe content'];
/** The tiny model's entailment logits for GUN are 5, 0, 0 (docs/models.md); contradiction 0, 5, 5. */
const E5 = Math.exp(5);

describe('POST /classify with the tiny model', () => {
  let nli: TestNli;

  beforeAll(async () => {
    nli = await startNliWithTinyModel({
      NLI_MAX_TEXT_CHARS: '200',
      NLI_MAX_LABELS: '5',
    });
  });

  afterAll(async () => {
    await nli?.close();
  });

  it('single-label: softmax of the entailment logits across the labels, best first', async () => {
    const { status, body } = await nli.post<ClassifyReply>('/classify', {
      text: GUN,
      candidate_labels: LABELS,
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({ sequence: GUN, labels: LABELS, model: 'tiny-nli', cached: false });
    expect(body.scores[0]).toBeCloseTo(E5 / (E5 + 2), 6);
    expect(body.scores[1]).toBeCloseTo(1 / (E5 + 2), 6);
    expect(body.scores[2]).toBeCloseTo(1 / (E5 + 2), 6);
  });

  it('multi_label: each label on its own, softmax over [contradiction, entailment]', async () => {
    const { status, body } = await nli.post<ClassifyReply>('/classify', {
      text: GUN,
      candidate_labels: ['safe content', 'violence', 'hate speech'],
      multi_label: true,
    });
    expect(status).toBe(200);
    expect(body.labels).toEqual(['violence', 'safe content', 'hate speech']);
    expect(body.scores[0]).toBeCloseTo(E5 / (E5 + 1), 6);
    expect(body.scores[1]).toBeCloseTo(1 / (E5 + 1), 6);
  });

  it('scores a single label on its own even without multi_label', async () => {
    const { body } = await nli.post<ClassifyReply>('/classify', {
      text: 'I like tea',
      candidate_labels: ['safe content'],
    });
    expect(body.labels).toEqual(['safe content']);
    expect(body.scores[0]).toBeCloseTo(E5 / (E5 + 1), 6);
  });

  it('uses the hypothesis template it is given', async () => {
    const { body } = await nli.post<ClassifyReply>('/classify', {
      text: 'I like tea',
      candidate_labels: ['violence', 'spam'],
      hypothesis_template: 'This text is about {} and violence.',
      multi_label: true,
    });
    // Both hypotheses now name violence, which the text does not: contradiction 10 for spam, 5 for violence.
    expect(body.scores[0]).toBeCloseTo(1 / (1 + E5), 6);
  });

  it('answers the same request from the Redis cache the second time', async () => {
    const request = { text: 'I will bully you', candidate_labels: ['harassment', 'safe content'] };
    const first = await nli.post<ClassifyReply>('/classify', request);
    const second = await nli.post<ClassifyReply>('/classify', request);
    expect(first.body.cached).toBe(false);
    expect(second.body).toEqual({ ...first.body, cached: true });
    const other = await nli.post<ClassifyReply>('/classify', { ...request, multi_label: true });
    expect(other.body.cached).toBe(false);
    const keys = await nli.service.context.deps.redis?.keys(`${nli.config.REDIS_KEY_PREFIX}nli:*`);
    expect(keys?.length).toBeGreaterThanOrEqual(2);
    const { body: status } = await nli.get<{ cache: { hits: number; misses: number } }>('/status');
    expect(status.cache.hits).toBeGreaterThanOrEqual(1);
    expect(status.cache.misses).toBeGreaterThanOrEqual(2);
  });

  it('counts characters, not UTF-16 units: 200 emoji fit a 200-character limit', async () => {
    const { status } = await nli.post('/classify', { text: '😀'.repeat(200), candidate_labels: ['spam'] });
    expect(status).toBe(200);
  });

  const invalid: [string, unknown, string[]][] = [
    ['an empty text', { text: '', candidate_labels: ['spam'] }, ['body.text']],
    ['a blank text', { text: '  \n', candidate_labels: ['spam'] }, ['body.text']],
    ['a text over the limit', { text: 'a'.repeat(201), candidate_labels: ['spam'] }, ['body.text']],
    ['no labels', { text: 'tea', candidate_labels: [] }, ['body.candidate_labels']],
    [
      'too many labels',
      { text: 'tea', candidate_labels: ['a', 'b', 'c', 'd', 'e', 'f'] },
      ['body.candidate_labels'],
    ],
    ['a duplicate label', { text: 'tea', candidate_labels: ['spam', 'spam'] }, ['body.candidate_labels.1']],
    ['an empty label', { text: 'tea', candidate_labels: ['spam', ''] }, ['body.candidate_labels.1']],
    [
      'a label over 100 characters',
      { text: 'tea', candidate_labels: ['x'.repeat(101)] },
      ['body.candidate_labels.0'],
    ],
    [
      'a template without {}',
      { text: 'tea', candidate_labels: ['spam'], hypothesis_template: 'It is.' },
      ['body.hypothesis_template'],
    ],
    [
      'wrong types',
      { text: 5, candidate_labels: 'spam', multi_label: 'yes' },
      ['body.text', 'body.candidate_labels', 'body.multi_label'],
    ],
    ['an unknown field', { text: 'tea', candidate_labels: ['spam'], labels: ['x'] }, ['body']],
    ['no body fields at all', {}, ['body.text', 'body.candidate_labels']],
    ['an array body', [], ['body']],
  ];

  it.each(invalid)(
    'refuses %s with 400 VALIDATION_FAILED naming every problem',
    async (_case, request, paths) => {
      const { status, body } = await nli.post<ErrorReply>('/classify', request);
      expect(status).toBe(400);
      expect(body).toMatchObject({ code: 40002, error: 'VALIDATION_FAILED' });
      expect(body.details?.issues.map((issue) => issue.path)).toEqual(paths);
    },
  );

  it('refuses a label and template that leave the model no room for the text, with 400', async () => {
    const { status, body } = await nli.post<ErrorReply>('/classify', {
      text: 'tea',
      candidate_labels: [Array(50).fill('a').join(' ')],
      hypothesis_template: `${'a '.repeat(99)}{}`,
    });
    expect(status).toBe(400);
    expect(body).toMatchObject({ code: 40002, error: 'VALIDATION_FAILED' });
    expect(body.details?.issues.map((issue) => issue.path)).toEqual(['body.candidate_labels']);
    expect(body.message).toContain('at most 128');
  });

  it('refuses a body that is not JSON with 400 MALFORMED_JSON', async () => {
    const { status, body } = await nli.post<ErrorReply>('/classify', '{"text": ');
    expect(status).toBe(400);
    expect(body).toMatchObject({ code: 40001, error: 'MALFORMED_JSON' });
  });
});

describe('POST /classify without Redis', () => {
  let nli: TestNli;

  beforeAll(async () => {
    nli = await startNliWithTinyModel({
      REDIS_URL: 'redis://127.0.0.1:1/0',
    });
  });

  afterAll(async () => {
    await nli?.close();
  });

  it('computes every answer instead of failing', async () => {
    const request = { text: GUN, candidate_labels: LABELS };
    const first = await nli.post<ClassifyReply>('/classify', request);
    const second = await nli.post<ClassifyReply>('/classify', request);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect([first.body.cached, second.body.cached]).toEqual([false, false]);
    expect(second.body.labels[0]).toBe('violence');
  });
});
