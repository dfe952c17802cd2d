import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@tp/runtime';

import { loadTranslatorConfig } from './config.js';
import { chainOptions, onlineEngines } from './engines-from-config.js';

/** The ConfigError thrown for these settings. */
function configError(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadTranslatorConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a configuration error');
}

describe('translator configuration', () => {
  it('defaults: port 3004, no primary engine, MyMemory off, 50000 characters, the shared tp: key prefix', () => {
    const config = loadTranslatorConfig({});
    expect(config).toMatchObject({
      PORT: 3004,
      PRIMARY_ENGINE: 'none',
      MYMEMORY_URL: '',
      LIBRETRANSLATE_URL: '',
      MODELS_DIR: 'var/models',
      ALLOW_TEST_MODELS: false,
      MAX_TEXT_CHARS: 50_000,
      REDIS_KEY_PREFIX: 'tp:',
      ENGINE_TIMEOUT_MS: 10_000,
      PRIMARY_MAX_RETRIES: 2,
    });
  });

  it('builds no online engine by default, only the in-process OpenCC converter: nothing leaves the machine unless configured', () => {
    const engines = onlineEngines(loadTranslatorConfig({}));
    expect(Object.keys(engines)).toEqual(['variant']);
    expect(engines.variant?.name).toBe('opencc');
    expect(onlineEngines(loadTranslatorConfig({ OPENCC_ENABLED: 'false' }))).toEqual({});
  });

  it('fills each slot as configured: DeepL primary, MyMemory fallback, LibreTranslate local', () => {
    const engines = onlineEngines(
      loadTranslatorConfig({
        PRIMARY_ENGINE: 'deepl',
        PRIMARY_ENGINE_KEY: 'key:fx',
        MYMEMORY_URL: 'https://api.mymemory.translated.net',
        LIBRETRANSLATE_URL: 'http://libretranslate:5000',
        LIBRETRANSLATE_CHAR_LIMIT: '2000',
      }),
    );
    expect(engines.primary?.name).toBe('deepl');
    expect(engines.fallback?.name).toBe('mymemory');
    expect(engines.local).toMatchObject({ name: 'libretranslate', maxChars: 2000 });
  });

  it('puts Google in the primary slot when asked, with the same key and host settings', () => {
    const engines = onlineEngines(
      loadTranslatorConfig({ PRIMARY_ENGINE: 'google', PRIMARY_ENGINE_KEY: 'g' }),
    );
    expect(engines.primary?.name).toBe('google');
  });

  it('refuses PRIMARY_ENGINE=deepl without PRIMARY_ENGINE_KEY, naming the missing setting', () => {
    const err = configError({ PRIMARY_ENGINE: 'deepl' });
    expect(err.setting).toBe('PRIMARY_ENGINE_KEY');
    expect(err.message).toContain('must be set when PRIMARY_ENGINE=deepl');
  });

  it('refuses PRIMARY_ENGINE=google with a blank PRIMARY_ENGINE_KEY', () => {
    const err = configError({ PRIMARY_ENGINE: 'google', PRIMARY_ENGINE_KEY: '  ' });
    expect(err.setting).toBe('PRIMARY_ENGINE_KEY');
    expect(err.message).toContain('must be set when PRIMARY_ENGINE=google');
  });

  it('refuses an unknown primary engine', () => {
    const err = configError({ PRIMARY_ENGINE: 'bing' });
    expect(err.setting).toBe('PRIMARY_ENGINE');
    expect(err.message).toContain('must be deepl, google or none');
  });

  it.each([
    ['LIBRETRANSLATE_URL', 'libretranslate:5000'],
    ['PRIMARY_ENGINE_URL', 'ftp://deepl'],
    ['MYMEMORY_URL', 'not a url'],
  ])('refuses a malformed %s', (setting, value) => {
    expect(configError({ [setting]: value }).setting).toBe(setting);
  });

  it.each([
    ['MAX_TEXT_CHARS', '0'],
    ['LIBRETRANSLATE_CHAR_LIMIT', 'many'],
  ])('refuses %s=%s', (setting, value) => {
    expect(configError({ [setting]: value }).setting).toBe(setting);
  });

  it('passes timeouts, retries and breaker settings to the chain slots', () => {
    const options = chainOptions(
      loadTranslatorConfig(
        {},
        {
          BREAKER_THRESHOLD: 3,
          PRIMARY_MAX_RETRIES: 0,
          ENGINE_TIMEOUT_MS: 1500,
          LOCAL_ENGINE_TIMEOUT_MS: 2500,
          OFFLINE_ENGINE_TIMEOUT_MS: 3500,
          ENGINE_RETRY_BACKOFF_MS: 10,
        },
      ),
    );
    expect(options.resilience).toMatchObject({
      initialBackoffMs: 10,
      maxBackoffMs: 100,
      breakerThreshold: 3,
    });
    expect(options.slots?.primary?.resilience).toEqual({ timeoutMs: 1500, maxRetries: 0 });
    expect(options.slots?.fallback?.resilience).toEqual({ timeoutMs: 1500 });
    expect(options.slots?.local?.resilience).toEqual({ timeoutMs: 2500 });
    expect(options.slots?.offline?.resilience).toEqual({ timeoutMs: 3500 });
  });
});
