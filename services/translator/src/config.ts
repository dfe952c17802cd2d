import { COMMON_TUNING, commonSettings, portSetting, sharedSettings } from '@tp/platform';
import { configLoader, env } from '@tp/runtime';
import { z } from 'zod';

/** A URL that may be left empty, which means "not configured". */
const optionalUrl = () =>
  z
    .string()
    .default('')
    .refine(
      (value) => {
        if (value === '') return true;
        try {
          return ['http:', 'https:'].includes(new URL(value).protocol);
        } catch {
          return false;
        }
      },
      { error: 'must be empty or a URL with scheme http or https' },
    );

/**
 * Translator settings (environment variables); every one is listed in docs/configuration.md. The
 * engine chain's order is fixed; these settings say which engine, if any, fills each slot.
 */
export const translatorSettings = z
  .object({
    ...commonSettings,
    PORT: portSetting(3004),
    MAX_TEXT_CHARS: sharedSettings.MAX_TEXT_CHARS,
    OPENCC_ENABLED: env
      .bool(true)
      .describe('OpenCC, first in the chain: zh-CN <-> zh-TW conversion (Taiwan vocabulary), no other pair'),
    PRIMARY_ENGINE: z
      .enum(['deepl', 'google', 'none'], { error: 'must be deepl, google or none' })
      .default('none')
      .describe('engine of the primary slot: `deepl`, `google` or `none` (slot skipped)'),
    PRIMARY_ENGINE_KEY: env
      .string('')
      .describe(
        "the primary engine's API key, required with PRIMARY_ENGINE: a DeepL key (`:fx` keys use the Free API host) or a Google Cloud Translation v2 key",
      ),
    PRIMARY_ENGINE_URL: optionalUrl().describe(
      "overrides the primary engine's host (a proxy): the DeepL host chosen from the key, or `https://translation.googleapis.com`",
    ),
    MYMEMORY_URL: optionalUrl().describe(
      'MyMemory as the free fallback, e.g. `https://api.mymemory.translated.net`; empty = slot skipped (a third-party service receives the text, so off unless asked). It translates at most 500 characters and flags the result truncated',
    ),
    MYMEMORY_EMAIL: env
      .string('')
      .describe('contact address sent to MyMemory (`de`), which raises its daily quota'),
    LIBRETRANSLATE_URL: optionalUrl().describe(
      'a self-hosted LibreTranslate (the local slot); empty = slot skipped',
    ),
    LIBRETRANSLATE_API_KEY: env
      .string('')
      .describe('sent when the LibreTranslate instance runs with `--api-keys`'),
    LIBRETRANSLATE_CHAR_LIMIT: env
      .positiveInt(5000)
      .describe("the instance's `--char-limit`: longer text is split into chunks of this size"),
    APERTIUM_URL: optionalUrl().describe(
      'Apertium APy (the slot after LibreTranslate); empty = slot skipped. `npm start` runs one and sets it unless it is set',
    ),
    MODELS_DIR: env
      .string('var/models')
      .describe(
        'offline Opus-MT models (`npm run models:pull`); missing or empty = the offline slot skipped',
      ),
    ALLOW_TEST_MODELS: sharedSettings.ALLOW_TEST_MODELS,
  })
  .superRefine((config, ctx) => {
    // An engine chosen without its key would fail every call; say so at start instead.
    if (config.PRIMARY_ENGINE !== 'none' && config.PRIMARY_ENGINE_KEY.trim() === '') {
      ctx.addIssue({
        code: 'custom',
        path: ['PRIMARY_ENGINE_KEY'],
        message: `must be set when PRIMARY_ENGINE=${config.PRIMARY_ENGINE}`,
      });
    }
  });

/**
 * Named constants of the translator (tests shorten them in-process; only benches ever changed them):
 * - ENGINE_TIMEOUT_MS, LOCAL_ENGINE_TIMEOUT_MS, OFFLINE_ENGINE_TIMEOUT_MS: one attempt of an online
 *   engine, of LibreTranslate or Apertium (CPU-bound), of the offline model (slowest, the last resort);
 * - PRIMARY_MAX_RETRIES, ENGINE_RETRY_BACKOFF_MS: the primary engine's retries after a transient
 *   failure (429, 5xx, timeout), and its first backoff, growing to 10x;
 * - BREAKER_THRESHOLD: consecutive failures that open an engine's circuit breaker;
 * - TRANSLATION_MAX_ATTEMPTS, TRANSLATION_RETRY_BACKOFF_MS, TRANSLATION_RETRY_MAX_BACKOFF_MS: tries of
 *   a content translation (the first, then through the retry topic) before it is dead-lettered as
 *   `TRANSLATION_FAILED`, and the wait before a retry, doubling per attempt (with jitter) up to 5
 *   minutes: at least 79 minutes in all, long enough to ride out an engine's outage;
 * - BREAKER_COOLDOWN_MS, QUOTA_COOLDOWN_MS: how long an open breaker skips its engine, and how long
 *   after a quota answer (quotas reset slowly);
 * - APERTIUM_CHAR_LIMIT: characters per text sent to APy (its sentences are split before);
 * - ENGINE_PAIRS_REFRESH_MS: how old an engine's list of language pairs may get;
 * - TRANSLATION_CONSUMER_CONCURRENCY: requests of a batch translated at once;
 * - TRANSLATION_OUTBOX_LINGER_MS: how long a free-text result waits to share its outbox INSERT (a
 *   SIGKILL loses at most this much; docs/decisions.md);
 * - GLOSSARY_REFRESH_MS: how old the view of the glossaries may be (one small query a period);
 * - GLOSSARY_DELETIONS_SWEEP_MS: with DeepL, how often deleted glossaries are deleted there;
 * - OFFLINE_THREADS: onnxruntime threads per offline model run: one, since requests of a batch already
 *   run at once (TRANSLATION_CONSUMER_CONCURRENCY) and share the cores.
 */
export const TRANSLATOR_TUNING = {
  BREAKER_THRESHOLD: 5,
  TRANSLATION_MAX_ATTEMPTS: 40,
  TRANSLATION_RETRY_BACKOFF_MS: 1000,
  TRANSLATION_RETRY_MAX_BACKOFF_MS: 300_000,
  ENGINE_TIMEOUT_MS: 10_000,
  LOCAL_ENGINE_TIMEOUT_MS: 30_000,
  OFFLINE_ENGINE_TIMEOUT_MS: 60_000,
  PRIMARY_MAX_RETRIES: 2,
  ENGINE_RETRY_BACKOFF_MS: 200,
  BREAKER_COOLDOWN_MS: 30_000,
  QUOTA_COOLDOWN_MS: 15 * 60_000,
  APERTIUM_CHAR_LIMIT: 2000,
  ENGINE_PAIRS_REFRESH_MS: 5 * 60_000,
  TRANSLATION_CONSUMER_CONCURRENCY: 16,
  TRANSLATION_OUTBOX_LINGER_MS: 250,
  GLOSSARY_REFRESH_MS: 1000,
  GLOSSARY_DELETIONS_SWEEP_MS: 30_000,
  OFFLINE_THREADS: 1,
  ...COMMON_TUNING,
};

export const loadTranslatorConfig = configLoader(translatorSettings, TRANSLATOR_TUNING);

export type TranslatorConfig = ReturnType<typeof loadTranslatorConfig>;
