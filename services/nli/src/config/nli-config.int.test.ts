import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { startNliWithTinyModel, type TestNli } from '../../test/nli-fixture.js';

interface ConfigReply {
  candidate_labels: string[];
  safe_labels: string[];
  threshold: number;
  hypothesis_template: string;
  enabled: boolean;
  revision: number;
  updated_at: string;
}

interface ErrorReply {
  code: number;
  error: string;
  details?: { issues: { path: string }[] };
}

describe('GET and PUT /config', () => {
  let nli: TestNli;

  beforeAll(async () => {
    nli = await startNliWithTinyModel();
  });

  afterAll(async () => {
    await nli?.close();
  });

  it('reads the defaults the migration wrote', async () => {
    const { status, body } = await nli.get<ConfigReply>('/config');
    expect(status).toBe(200);
    expect(body).toMatchObject({
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
      hypothesis_template: 'This example is {}.',
      enabled: true,
      revision: 1,
    });
  });

  it('changes only the fields sent, bumps the revision, and reads back the same', async () => {
    const { body: before } = await nli.get<ConfigReply>('/config');
    const { status, body } = await nli.put<ConfigReply>('/config', { threshold: 0.7, safe_labels: [] });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      candidate_labels: before.candidate_labels,
      safe_labels: [],
      threshold: 0.7,
      enabled: true,
      revision: before.revision + 1,
    });
    expect((await nli.get<ConfigReply>('/config')).body).toEqual(body);
    await nli.put('/config', { threshold: 0.5, safe_labels: ['safe content'] });
  });

  it('gives /classify the configured template when the request names none', async () => {
    await nli.put('/config', { hypothesis_template: 'This is about {} and violence.' });
    const { body } = await nli.post<{ scores: number[] }>('/classify', {
      text: 'I like tea',
      candidate_labels: ['spam'],
    });
    // "spam and violence" names two concepts the text lacks: contradiction 10, entailment 0.
    expect(body.scores[0]).toBeCloseTo(1 / (1 + Math.exp(10)), 9);
    await nli.put('/config', { hypothesis_template: 'This example is {}.' });
  });

  const invalid: [string, unknown, string[]][] = [
    ['no field', {}, ['body']],
    ['a threshold of 0', { threshold: 0 }, ['body.threshold']],
    ['a threshold over 1', { threshold: 1.5 }, ['body.threshold']],
    ['a threshold that is a string', { threshold: '0.5' }, ['body.threshold']],
    ['no candidate labels', { candidate_labels: [] }, ['body.candidate_labels']],
    ['duplicate candidate labels', { candidate_labels: ['spam', 'spam'] }, ['body.candidate_labels.1']],
    ['a safe label that is not a candidate', { safe_labels: ['fine'] }, ['body.safe_labels.0']],
    ['only safe candidates', { candidate_labels: ['safe content'] }, ['body.candidate_labels']],
    ['enabled as a string', { enabled: 'false' }, ['body.enabled']],
    ['a template without {}', { hypothesis_template: 'plain' }, ['body.hypothesis_template']],
    ['an unknown field', { violation_threshold: 0.5 }, ['body']],
  ];

  it.each(invalid)(
    'refuses %s with 400 VALIDATION_FAILED and changes nothing',
    async (_case, request, paths) => {
      const { body: before } = await nli.get<ConfigReply>('/config');
      const { status, body } = await nli.put<ErrorReply>('/config', request);
      expect(status).toBe(400);
      expect(body).toMatchObject({ code: 40002, error: 'VALIDATION_FAILED' });
      expect(body.details?.issues.map((issue) => issue.path)).toEqual(paths);
      expect((await nli.get<ConfigReply>('/config')).body).toEqual(before);
    },
  );
});
