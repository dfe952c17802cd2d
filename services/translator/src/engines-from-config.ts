import type { ChainOptions } from './chain/index.js';
import type { TranslatorConfig } from './config.js';
import { createDeepLEngine } from './engines/deepl/deepl.engine.js';
import { createApertiumEngine } from './engines/apertium/apertium.engine.js';
import type { TranslationEngine } from './engines/engine.js';
import { createGoogleEngine } from './engines/google/google.engine.js';
import { createLibreTranslateEngine } from './engines/libretranslate/libretranslate.engine.js';
import { createMyMemoryEngine } from './engines/mymemory/mymemory.engine.js';
import { createOpenCcEngine } from './engines/opencc/opencc.engine.js';

/** The HTTP engines of the chain; a slot left undefined is not configured and the chain skips it. */
export interface OnlineEngines {
  readonly variant?: TranslationEngine;
  readonly primary?: TranslationEngine;
  readonly fallback?: TranslationEngine;
  readonly local?: TranslationEngine;
  readonly apertium?: TranslationEngine;
}

/** MyMemory's public API, the value of MYMEMORY_URL that turns it on. */
export const MYMEMORY_PUBLIC_URL = 'https://api.mymemory.translated.net';

/** Builds the engines the settings ask for, all but the offline one (which opens apart). */
export function onlineEngines(config: TranslatorConfig): OnlineEngines {
  return {
    ...(config.OPENCC_ENABLED ? { variant: createOpenCcEngine() } : {}),
    ...primaryEngine(config),
    ...(config.MYMEMORY_URL
      ? {
          fallback: createMyMemoryEngine({
            baseUrl: config.MYMEMORY_URL,
            ...(config.MYMEMORY_EMAIL ? { email: config.MYMEMORY_EMAIL } : {}),
          }),
        }
      : {}),
    ...(config.LIBRETRANSLATE_URL
      ? {
          local: createLibreTranslateEngine({
            baseUrl: config.LIBRETRANSLATE_URL,
            maxChars: config.LIBRETRANSLATE_CHAR_LIMIT,
            ...(config.LIBRETRANSLATE_API_KEY ? { apiKey: config.LIBRETRANSLATE_API_KEY } : {}),
          }),
        }
      : {}),
    ...(config.APERTIUM_URL
      ? {
          apertium: createApertiumEngine({
            baseUrl: config.APERTIUM_URL,
            maxChars: config.APERTIUM_CHAR_LIMIT,
          }),
        }
      : {}),
  };
}

function primaryEngine(config: TranslatorConfig): { primary?: TranslationEngine } {
  switch (config.PRIMARY_ENGINE) {
    case 'deepl':
      return {
        primary: createDeepLEngine({
          authKey: config.PRIMARY_ENGINE_KEY,
          ...(config.PRIMARY_ENGINE_URL ? { baseUrl: config.PRIMARY_ENGINE_URL } : {}),
        }),
      };
    case 'google':
      return {
        primary: createGoogleEngine({
          apiKey: config.PRIMARY_ENGINE_KEY,
          ...(config.PRIMARY_ENGINE_URL ? { baseUrl: config.PRIMARY_ENGINE_URL } : {}),
        }),
      };
    case 'none':
      return {};
    default: {
      const unknown: never = config.PRIMARY_ENGINE;
      throw new Error(`unknown primary engine ${String(unknown)}`);
    }
  }
}

/**
 * Resilience settings per slot. Only what the settings name is overridden; the chain keeps its slot
 * defaults for the rest (fewer retries for the fallback, local and offline engines).
 */
export function chainOptions(config: TranslatorConfig): Omit<ChainOptions, 'metrics'> {
  return {
    remedies: pairRemedies(config),
    pairs: { refreshMs: config.ENGINE_PAIRS_REFRESH_MS },
    resilience: {
      initialBackoffMs: config.ENGINE_RETRY_BACKOFF_MS,
      maxBackoffMs: config.ENGINE_RETRY_BACKOFF_MS * 10,
      breakerThreshold: config.BREAKER_THRESHOLD,
      breakerCooldownMs: config.BREAKER_COOLDOWN_MS,
      quotaCooldownMs: config.QUOTA_COOLDOWN_MS,
    },
    slots: {
      primary: {
        resilience: { timeoutMs: config.ENGINE_TIMEOUT_MS, maxRetries: config.PRIMARY_MAX_RETRIES },
      },
      fallback: { resilience: { timeoutMs: config.ENGINE_TIMEOUT_MS } },
      local: { resilience: { timeoutMs: config.LOCAL_ENGINE_TIMEOUT_MS } },
      apertium: { resilience: { timeoutMs: config.LOCAL_ENGINE_TIMEOUT_MS } },
      offline: { resilience: { timeoutMs: config.OFFLINE_ENGINE_TIMEOUT_MS } },
    },
  };
}

/**
 * What would make a pair no engine serves translatable in this deployment: the engine settings not
 * used yet that serve many pairs (the online engines, LibreTranslate) and the offline model of the
 * pair (Opus-MT names languages by their bare code: zh-CN -> `zh`). Apertium is not offered: no
 * Apertium pair exists for most languages such a request names.
 */
export function pairRemedies(config: TranslatorConfig): (source: string, target: string) => string[] {
  const primary = {
    none: 'set PRIMARY_ENGINE=deepl|google with its key (PRIMARY_ENGINE_KEY)',
    deepl: 'set PRIMARY_ENGINE=google with a Google key (PRIMARY_ENGINE_KEY)',
    google: 'set PRIMARY_ENGINE=deepl with a DeepL key (PRIMARY_ENGINE_KEY)',
  }[config.PRIMARY_ENGINE];
  const settings = [
    primary,
    ...(config.LIBRETRANSLATE_URL ? [] : ['set LIBRETRANSLATE_URL to a LibreTranslate instance']),
    ...(config.MYMEMORY_URL
      ? []
      : [`set MYMEMORY_URL=${MYMEMORY_PUBLIC_URL} (a free online service; texts go to it)`]),
  ];
  return (source, target) => {
    const [from, to] = [source, target].map((code) => code.split('-')[0]?.toLowerCase() ?? code);
    const model =
      source !== 'auto' && from !== to
        ? [
            `run \`npm run models:pull -- ${from}-${to}\` (an offline Opus-MT model, where one exists; needs internet)`,
          ]
        : [];
    return [...settings, ...model];
  };
}
