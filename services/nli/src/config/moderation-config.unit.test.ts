import { describe, expect, it } from '@jest/globals';

import { configProblems } from './moderation-config.js';

describe('configProblems', () => {
  it('accepts safe labels that are candidates, with at least one unsafe candidate', () => {
    expect(configProblems({ candidateLabels: ['violence', 'safe'], safeLabels: ['safe'] })).toEqual([]);
    expect(configProblems({ candidateLabels: ['violence'], safeLabels: [] })).toEqual([]);
  });

  it('names each safe label that is not a candidate', () => {
    expect(configProblems({ candidateLabels: ['violence', 'safe'], safeLabels: ['safe', 'fine'] })).toEqual([
      { path: 'body.safe_labels.1', message: '"fine" is not one of the candidate labels', code: 'custom' },
    ]);
  });

  it('refuses a configuration in which every candidate is safe, since nothing could be flagged', () => {
    expect(configProblems({ candidateLabels: ['safe'], safeLabels: ['safe'] })).toEqual([
      {
        path: 'body.candidate_labels',
        message: 'at least one candidate label must not be a safe label',
        code: 'custom',
      },
    ]);
  });
});
