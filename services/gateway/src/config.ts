import { COMMON_TUNING, commonSettings, NLI_TEXT_LIMIT, portSetting, sharedSettings } from '@tp/platform';
import { configLoader, env } from '@tp/runtime';
import { z } from 'zod';

import { chatSettings, CHAT_TUNING } from './chat/chat-config.js';

/** Gateway settings (environment variables); every one is listed in docs/configuration.md. */
export const gatewaySettings = z.object({
  ...commonSettings,
  ...chatSettings,
  PORT: portSetting(3000),
  TRANSLATOR_URL: env.url(['http', 'https'], 'http://127.0.0.1:3004').describe('the translator service'),
  NLI_URL: env.url(['http', 'https'], 'http://127.0.0.1:3005').describe('the nli service'),
  WORKER_URL: env
    .url(['http', 'https'], 'http://127.0.0.1:3006')
    .describe('the worker (its `/ready`, for the admin status page)'),
  MAX_TEXT_CHARS: sharedSettings.MAX_TEXT_CHARS,
  BODY_LIMIT_KB: env.positiveInt(512).describe('largest request body (413 `PAYLOAD_TOO_LARGE` above)'),
  RATE_LIMIT_PUBLIC: env
    .nonNegativeInt(600)
    .describe('requests per window per client address on public routes; 0 = off'),
  RATE_LIMIT_PER_KEY: env
    .nonNegativeInt(1200)
    .describe('requests per window per API key on keyed routes; 0 = off'),
  CORS_ORIGINS: env
    .list('')
    .describe('comma-separated browser origins allowed, `*` for any; empty = no CORS headers'),
  TRUST_PROXY: env
    .string('false')
    .describe(
      'Express `trust proxy` (`true`, a hop count, or addresses such as `loopback`): whose `X-Forwarded-For` gives the client address',
    ),
  METRICS_ALLOW: env
    .list('loopback')
    .describe(
      'direct peers (addresses, CIDR ranges, `loopback`, `linklocal`, `uniquelocal`) that may read `GET /metrics`; never a request through a proxy',
    ),
});

/**
 * Named constants of the gateway (tests shorten them in-process; no deployment has changed them):
 * - TRANSLATE_TIMEOUT_MS: one translation through the translator, the engine chain included, whose
 *   slowest engine (offline) has 60 s itself;
 * - LANGUAGES_TIMEOUT_MS: the translator's language list, after which the built-in list answers;
 * - NLI_TIMEOUT_MS: one NLI verdict, ten times a model run on a CPU;
 * - CONTENT_READ_CACHE_TTL_S: a cached merged view; the pipeline drops it on change, this bounds a
 *   missed drop (Redis down at the time);
 * - GLOSSARY_REFRESH_MS: how old the view of which glossary each pair has may be (part of the hot-cache
 *   key; one small query a period), as the translator's;
 * - API_KEY_CACHE_MS: how long a process trusts a lookup of a known API key; a revocation through
 *   another process or the CLI applies within it (docs/decisions.md "API keys");
 * - RATE_LIMIT_WINDOW_S: the rate limits' window (RATE_LIMIT_PUBLIC, RATE_LIMIT_PER_KEY count in it);
 * - AUTH_FAILURES_PER_MIN: failed authentications per client address and minute before 429
 *   `RATE_LIMITED` without a key lookup: a guesser's pace, far above a client mistyping its key;
 * - NLI_MAX_TEXT_CHARS: longest text of an NLI check (the model's window); the chat guardrail cuts
 *   longer messages into pieces of this size;
 * - CONTENT_REQUEST_THROTTLE_S: a read requests a missing (or weak) translation of a field at most
 *   once in ten minutes, which bounds what readers add to the pipeline's work.
 */
export const GATEWAY_TUNING = {
  TRANSLATE_TIMEOUT_MS: 60_000,
  LANGUAGES_TIMEOUT_MS: 500,
  NLI_TIMEOUT_MS: 5_000,
  CONTENT_READ_CACHE_TTL_S: 300,
  GLOSSARY_REFRESH_MS: 1000,
  API_KEY_CACHE_MS: 5_000,
  RATE_LIMIT_WINDOW_S: 60,
  AUTH_FAILURES_PER_MIN: 30,
  NLI_MAX_TEXT_CHARS: NLI_TEXT_LIMIT,
  CONTENT_REQUEST_THROTTLE_S: 600,
  ...CHAT_TUNING,
  ...COMMON_TUNING,
};

export const loadGatewayConfig = configLoader(gatewaySettings, GATEWAY_TUNING);

export type GatewayConfig = ReturnType<typeof loadGatewayConfig>;
