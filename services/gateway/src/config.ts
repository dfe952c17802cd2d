import { commonSettings } from '@tp/platform';
import { env, parseEnv } from '@tp/runtime';
import { z } from 'zod';

import { chatSettings } from './chat/chat-config.js';

/** Gateway settings (environment variables); documented in README "Configuration". */
export const gatewaySettings = z.object({
  ...commonSettings,
  ...chatSettings,
  PORT: env.port(3000),
  TRANSLATOR_URL: env.url(['http', 'https'], 'http://127.0.0.1:3004'),
  NLI_URL: env.url(['http', 'https'], 'http://127.0.0.1:3005'),
  WORKER_URL: env.url(['http', 'https'], 'http://127.0.0.1:3006'),
  /** Time allowed to the translator for one translation (the engine chain included), in ms. */
  TRANSLATE_TIMEOUT_MS: env.positiveInt(60_000),
  /** Time allowed to the translator for its language list before the built-in list is used, in ms. */
  LANGUAGES_TIMEOUT_MS: env.positiveInt(500),
  /** Time allowed to the nli service for one classification, in ms. */
  NLI_TIMEOUT_MS: env.positiveInt(5_000),
  /** Hard maximum of characters in one translation request (longer text is split, up to this). */
  MAX_TEXT_CHARS: env.positiveInt(50_000),
  /**
   * How long a gateway process trusts a lookup of a known API key, in ms (0 = ask Postgres every
   * time). Revocation through this process applies at once; through the CLI or another replica,
   * within this time.
   */
  API_KEY_CACHE_MS: env.nonNegativeInt(5_000),
  /** Largest request body accepted, in KiB; larger bodies get 413. */
  BODY_LIMIT_KB: env.positiveInt(512),
  /** Requests per window per client address on public routes; 0 turns the limit off. */
  RATE_LIMIT_PUBLIC: env.nonNegativeInt(600),
  /** Requests per window per API key on keyed routes; 0 turns the limit off. */
  RATE_LIMIT_PER_KEY: env.nonNegativeInt(1200),
  RATE_LIMIT_WINDOW_S: env.positiveInt(60),
  /**
   * How often, in ms, each gateway process sends its rate-limit counts to Redis and learns the other
   * replicas'. Across replicas a client can exceed a limit by what it got through in one interval.
   */
  RATE_LIMIT_SYNC_MS: env.positiveInt(100),
  /** Prefix of Redis keys (hot cache, rate-limit counters); the translator must use the same one. */
  REDIS_KEY_PREFIX: env.string('tp:'),
  /**
   * Lifetime of a cached merged view of content (GET /api/v1/content/...), in seconds; 0 turns the read
   * cache off. The pipeline drops an entity's views when it changes; this bounds staleness when that
   * was missed (Redis down at the time).
   */
  CONTENT_READ_CACHE_TTL_S: env.nonNegativeInt(300),
  /**
   * How long a field read untranslated is not requested again in the same language for the same
   * source text, in seconds: repeated reads do not flood the translation queue.
   */
  CONTENT_REQUEST_THROTTLE_S: env.positiveInt(600),
  /** Comma-separated allowed browser origins, `*` for any; empty sends no CORS headers. */
  CORS_ORIGINS: env.list(''),
  /** Express "trust proxy": hops or addresses whose X-Forwarded-For is believed for the client address. */
  TRUST_PROXY: env.string('false'),
  /**
   * Who may read GET /metrics: comma-separated addresses, CIDR ranges or proxy-addr names (`loopback`,
   * `linklocal`, `uniquelocal`) of the direct peer. A request relayed by a proxy (X-Forwarded-For or
   * Forwarded) is public traffic and never gets them. Others get 404.
   */
  METRICS_ALLOW: env.list('loopback'),
  /** Most client addresses (and API keys) each rate limiter counts at once per window (LRU beyond). */
  RATE_LIMIT_MAX_CLIENTS: env.positiveInt(100_000),
  /** Failed authentications per client address and minute before 429 without a key lookup; 0 = off. */
  AUTH_FAILURES_PER_MIN: env.nonNegativeInt(30),
});

export type GatewayConfig = z.infer<typeof gatewaySettings>;

export const loadGatewayConfig = (source: NodeJS.ProcessEnv = process.env): GatewayConfig =>
  parseEnv(gatewaySettings, source);
