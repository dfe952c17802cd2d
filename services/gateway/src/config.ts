import { commonSettings, portSetting, sharedSettings } from '@tp/platform';
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
  NLI_MAX_TEXT_CHARS: sharedSettings.NLI_MAX_TEXT_CHARS,
  API_KEY_CACHE_MS: env
    .nonNegativeInt(5_000)
    .describe(
      'how long a process trusts a lookup of a known API key (0 = ask Postgres every time); a revocation through another process or the CLI applies within this time',
    ),
  BODY_LIMIT_KB: env.positiveInt(512).describe('largest request body (413 `PAYLOAD_TOO_LARGE` above)'),
  RATE_LIMIT_PUBLIC: env
    .nonNegativeInt(600)
    .describe('requests per window per client address on public routes; 0 = off'),
  RATE_LIMIT_PER_KEY: env
    .nonNegativeInt(1200)
    .describe('requests per window per API key on keyed routes; 0 = off'),
  RATE_LIMIT_WINDOW_S: env.positiveInt(60).describe('rate-limit window, in seconds'),
  AUTH_FAILURES_PER_MIN: env
    .nonNegativeInt(30)
    .describe(
      'failed authentications per client address and minute; beyond, 429 `RATE_LIMITED` before any key lookup; 0 = off',
    ),
  CONTENT_REQUEST_THROTTLE_S: env
    .positiveInt(600)
    .describe('a read requests a missing (or weak) translation of a field at most once in this time'),
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
 *   key; one small query a period), as the translator's.
 */
export const GATEWAY_TUNING = {
  TRANSLATE_TIMEOUT_MS: 60_000,
  LANGUAGES_TIMEOUT_MS: 500,
  NLI_TIMEOUT_MS: 5_000,
  CONTENT_READ_CACHE_TTL_S: 300,
  GLOSSARY_REFRESH_MS: 1000,
  ...CHAT_TUNING,
};

export const loadGatewayConfig = configLoader(gatewaySettings, GATEWAY_TUNING);

export type GatewayConfig = ReturnType<typeof loadGatewayConfig>;
