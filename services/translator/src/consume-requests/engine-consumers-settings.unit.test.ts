import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@tp/runtime';

import { loadTranslatorConfig } from '../config.js';

describe('engine consumer settings', () => {
  it('defaults: 40 attempts, backoff from 1 s up to 5 minutes, 16 requests at once', () => {
    expect(loadTranslatorConfig({})).toMatchObject({
      TRANSLATION_MAX_ATTEMPTS: 40,
      TRANSLATION_RETRY_BACKOFF_MS: 1000,
      TRANSLATION_RETRY_MAX_BACKOFF_MS: 300_000,
      TRANSLATION_CONSUMER_CONCURRENCY: 16,
    });
  });

  it('refuses a maximum backoff below the first one, and attempts below 1', () => {
    expect(() =>
      loadTranslatorConfig({
        TRANSLATION_RETRY_BACKOFF_MS: '5000',
        TRANSLATION_RETRY_MAX_BACKOFF_MS: '1000',
      }),
    ).toThrow(ConfigError);
    expect(() => loadTranslatorConfig({ TRANSLATION_MAX_ATTEMPTS: '0' })).toThrow(ConfigError);
  });
});
