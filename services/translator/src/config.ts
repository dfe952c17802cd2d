import { commonSettings } from '@tp/platform';
import { env, parseEnv } from '@tp/runtime';
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
 * Translator settings (environment variables); documented in README "Configuration". The engine
 * chain is fixed by the spec (primary, free fallback, local instance, offline); these settings say
 * which engine, if any, fills each slot.
 */
export const translatorSettings = z
  .object({
    ...commonSettings,
    PORT: env.port(3004),
    /**
     * OpenCC, the converter between Simplified Chinese (zh-CN) and Traditional Chinese with Taiwan's
     * vocabulary (zh-TW), first in the chain; it serves those two directions only. Its dictionaries
     * ship in the package, so it is on unless turned off.
     */
    OPENCC_ENABLED: env.bool(true),
    /** Engine of the primary slot (spec order 1). `none` leaves the slot empty: the chain skips it. */
    PRIMARY_ENGINE: z
      .enum(['deepl', 'google', 'none'], { error: 'must be deepl, google or none' })
      .default('none'),
    /** DeepL API key; required with PRIMARY_ENGINE=deepl. Keys ending in `:fx` use the Free API host. */
    DEEPL_AUTH_KEY: env.string(''),
    /** Overrides the DeepL host chosen from the key (a proxy, or the test double). */
    DEEPL_URL: optionalUrl(),
    /** Google Cloud Translation (v2) API key; required with PRIMARY_ENGINE=google. */
    GOOGLE_API_KEY: env.string(''),
    /** Overrides https://translation.googleapis.com. */
    GOOGLE_URL: optionalUrl(),
    /**
     * MyMemory, the free online fallback (spec order 2). Off unless asked for: it is a third-party
     * service, and turning it on sends the text there.
     */
    MYMEMORY_ENABLED: env.bool(false),
    MYMEMORY_URL: env.url(['http', 'https'], 'https://api.mymemory.translated.net'),
    /** Contact address sent to MyMemory (`de`), which raises its free daily quota. */
    MYMEMORY_EMAIL: env.string(''),
    /** Self-hosted LibreTranslate instance (spec order 3); empty leaves the slot empty. */
    LIBRETRANSLATE_URL: optionalUrl(),
    /** Sent when the instance runs with --api-keys. */
    LIBRETRANSLATE_API_KEY: env.string(''),
    /** The instance's --char-limit: longer text is split into chunks of at most this many characters. */
    LIBRETRANSLATE_CHAR_LIMIT: env.positiveInt(5000),
    /**
     * Apertium's HTTP server (APy), the second local engine, after LibreTranslate; empty leaves the
     * slot empty. `npm start` runs one and sets this unless it is set already.
     */
    APERTIUM_URL: optionalUrl(),
    /**
     * Characters per text sent to APy; longer text is split on sentence boundaries. The texts of a
     * call share APy requests of at most 5,000 characters (apertium.batch.ts).
     */
    APERTIUM_CHAR_LIMIT: env.positiveInt(2000),
    /** How old an engine's list of language pairs may get before it is read again. */
    ENGINE_PAIRS_REFRESH_MS: env.positiveInt(5 * 60_000),
    /**
     * Most distinct texts in translation at once that identical requests can join (one engine call
     * for all of them); beyond it, requests run on their own. Bounds the map of calls in flight.
     */
    TRANSLATION_IN_FLIGHT_MAX: env.positiveInt(10_000),
    /** How old the translator's view of the glossaries may be (one small Postgres query per period). */
    GLOSSARY_REFRESH_MS: env.positiveInt(1000),
    /** With DeepL: how often glossaries deleted in the admin API are deleted at DeepL (glossary-deletions.ts). */
    GLOSSARY_DELETIONS_SWEEP_MS: env.positiveInt(30_000),
    /** Folder of offline Opus-MT models (spec order 4), relative to the working directory. Missing = no models. */
    MODELS_DIR: env.string('var/models'),
    /**
     * Load offline models marked as test models (the tiny lexicon models of tools/models). Off: a toy
     * is never offered as a translator; tests that need one turn it on.
     */
    OFFLINE_ALLOW_TEST_MODELS: env.bool(false),
    /** Per-attempt timeout of the online engines (primary and fallback). */
    ENGINE_TIMEOUT_MS: env.positiveInt(10_000),
    /** Per-attempt timeout of the local engines (LibreTranslate, Apertium), which run on CPU. */
    LOCAL_ENGINE_TIMEOUT_MS: env.positiveInt(30_000),
    /**
     * Threads one offline model run uses (onnxruntime intra-op threads; they do not spin while idle).
     * 1 keeps the process to one core, which suits many small requests; raise it for real models on a
     * machine with cores to spare, where one sentence then finishes sooner.
     */
    OFFLINE_THREADS: env.positiveInt(1),
    /** Per-attempt timeout of the offline engine (CPU, slowest, but the last resort). */
    OFFLINE_ENGINE_TIMEOUT_MS: env.positiveInt(60_000),
    /** Retries of the primary engine after a transient failure (429, 5xx, timeout, network). */
    PRIMARY_MAX_RETRIES: env.nonNegativeInt(2),
    /** First backoff before a retry; it grows exponentially (with jitter) up to 10x this. */
    ENGINE_RETRY_BACKOFF_MS: env.positiveInt(200),
    /** Consecutive failed attempts that open an engine's circuit breaker. */
    BREAKER_THRESHOLD: env.positiveInt(5),
    /** How long an open breaker skips its engine before one trial call. */
    BREAKER_COOLDOWN_MS: env.positiveInt(30_000),
    /** Cooldown after a quota answer (DeepL 456, MyMemory daily quota): quotas reset slowly. */
    QUOTA_COOLDOWN_MS: env.positiveInt(15 * 60_000),
    /**
     * Hard maximum of characters in one request (413 TEXT_TOO_LONG beyond it). The spec's 5000 is the
     * primary engine's limit per call; longer text is split into calls, up to this maximum.
     */
    MAX_TEXT_CHARS: env.positiveInt(50_000),
    /** Prefix of the Redis keys; the same as the gateway's, so both see one hot cache. */
    REDIS_KEY_PREFIX: env.string('tp:'),
    /**
     * Engine consumer: how many times a TranslationRequested is tried while every engine fails
     * (the first try included) before it goes to the dead letters with TRANSLATION_FAILED. With the
     * default backoff, 40 tries span at least 79 minutes (every wait at its jitter's lowest), so an
     * outage of every engine for an hour dead-letters nothing.
     */
    TRANSLATION_MAX_ATTEMPTS: env.positiveInt(40),
    /**
     * Wait before the second try of a failed request; it doubles with each attempt (with jitter)
     * up to TRANSLATION_RETRY_MAX_BACKOFF_MS. The request waits on the retry topic meanwhile.
     */
    TRANSLATION_RETRY_BACKOFF_MS: env.positiveInt(1000),
    /** Longest wait between two tries of a failed request (5 minutes). */
    TRANSLATION_RETRY_MAX_BACKOFF_MS: env.positiveInt(300_000),
    /**
     * Requests the engine consumer translates at once, from a batch of the request topic (one result
     * send and one commit per batch); also the retry topic's partitions waited on in parallel.
     */
    TRANSLATION_CONSUMER_CONCURRENCY: env.positiveInt(16),
    /**
     * How long a free-text result waits in memory for others before the outbox INSERT (0: at once),
     * so the INSERT, the relay and the projection handle several rows per batch at low rates too.
     * Results held are lost on a SIGKILL (a SIGTERM writes them): docs/decisions.md.
     */
    TRANSLATION_OUTBOX_LINGER_MS: env.nonNegativeInt(250),
  })
  .superRefine((config, ctx) => {
    if (config.TRANSLATION_RETRY_MAX_BACKOFF_MS < config.TRANSLATION_RETRY_BACKOFF_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['TRANSLATION_RETRY_MAX_BACKOFF_MS'],
        message: 'must be at least TRANSLATION_RETRY_BACKOFF_MS',
      });
    }
    // An engine chosen without its key would fail every call; say so at start instead.
    if (config.PRIMARY_ENGINE === 'deepl' && config.DEEPL_AUTH_KEY.trim() === '') {
      ctx.addIssue({
        code: 'custom',
        path: ['DEEPL_AUTH_KEY'],
        message: 'must be set when PRIMARY_ENGINE=deepl',
      });
    }
    if (config.PRIMARY_ENGINE === 'google' && config.GOOGLE_API_KEY.trim() === '') {
      ctx.addIssue({
        code: 'custom',
        path: ['GOOGLE_API_KEY'],
        message: 'must be set when PRIMARY_ENGINE=google',
      });
    }
  });

export type TranslatorConfig = z.infer<typeof translatorSettings>;

export const loadTranslatorConfig = (source: NodeJS.ProcessEnv = process.env): TranslatorConfig =>
  parseEnv(translatorSettings, source);
