import { describe, expect, it } from '@jest/globals';

import { resultCacheKey } from './result-cache.js';

const base = {
  model: 'tiny-nli@abc',
  template: 'This example is {}.',
  labels: ['violence', 'safe content'],
  multiLabel: false,
  text: 'I like tea',
};

describe('resultCacheKey', () => {
  it('is the prefix, nli: and 32 hex characters', () => {
    expect(resultCacheKey(base, 'tp:')).toMatch(/^tp:nli:[0-9a-f]{32}$/);
  });

  it('changes with the model, template, label order, mode and text', () => {
    const key = resultCacheKey(base, 'tp:');
    for (const change of [
      { model: 'other@abc' },
      { template: 'It is about {}.' },
      { labels: ['safe content', 'violence'] },
      { multiLabel: true },
      { text: 'I like coffee' },
    ]) {
      expect(resultCacheKey({ ...base, ...change }, 'tp:')).not.toBe(key);
    }
  });

  it('cannot be forged by moving text between fields', () => {
    const a = resultCacheKey({ ...base, labels: ['a,b'], text: 'c' }, 'tp:');
    const b = resultCacheKey({ ...base, labels: ['a', 'b'], text: 'c' }, 'tp:');
    expect(a).not.toBe(b);
  });
});
