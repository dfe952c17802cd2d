import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@tp/runtime';

import { loadTranslatorConfig } from '../config.js';

describe('engine consumer settings', () => {
  it('are named constants: 40 attempts, backoff from 1 s up to 5 minutes, 16 requests at once', () => {
    expect(loadTranslatorConfig({})).toMatchObject({
      TRANSLATION_MAX_ATTEMPTS: 40,
      TRANSLATION_RETRY_BACKOFF_MS: 1000,
      TRANSLATION_RETRY_MAX_BACKOFF_MS: 300_000,
      TRANSLATION_CONSUMER_CONCURRENCY: 16,
    });
  });

  it('refuses them in the environment, where they would change nothing', () => {
    expect(() => loadTranslatorConfig({ TRANSLATION_MAX_ATTEMPTS: '2' })).toThrow(ConfigError);
    expect(() => loadTranslatorConfig({ TRANSLATION_RETRY_BACKOFF_MS: '100' })).toThrow(
      /TRANSLATION_RETRY_BACKOFF_MS: is a named constant \(1000\)/,
    );
  });
});
