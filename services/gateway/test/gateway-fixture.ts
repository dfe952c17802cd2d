import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';

import { splitTuning } from '@tp/runtime';
import { HotCache } from '@tp/translation';
import { createClient } from 'redis';
import { ApiKeyStore } from '../src/auth/api-key.store.js';
import { createRateLimits, type RateLimits } from '../src/rate-limit/rate-limit.js';
import { GATEWAY_TUNING, loadGatewayConfig, type GatewayConfig } from '../src/config.js';
import { startGateway } from '../src/gateway.js';
import { startTestTranslator, type TestTranslator } from '../../translator/test/translator-fixture.js';
import { createTestDatabase, type TestDatabase } from '@tp/test/harness/databases';

export interface TestGateway {
  readonly url: string;
  readonly config: GatewayConfig;
  readonly store: ApiKeyStore;
  /** Keys made for the test: an admin, a client, and a revoked client key. */
  readonly keys: { readonly admin: string; readonly client: string; readonly revoked: string };
  /** The OpenAPI document the gateway serves. */
  readonly openapi: OpenApiDoc;
  /** The gateway's HTTP server (to watch what it buffers per connection). */
  readonly server: Server;
  close(): Promise<void>;
}

export interface OpenApiDoc {
  readonly paths: Record<
    string,
    Record<string, { 'x-access': 'public' | 'client' | 'admin'; [k: string]: unknown }>
  >;
  readonly [key: string]: unknown;
}

/**
 * The real gateway, in-process on an ephemeral port, on its own database and Redis key prefix, with
 * the test Kafka. Internal services point at a closed port unless overridden.
 */
export async function startTestGateway(settings: Record<string, string> = {}): Promise<TestGateway> {
  const db: TestDatabase = await createTestDatabase();
  // Named constants a test shortens (GATEWAY_TUNING) go in-process; the rest is the environment.
  // Tests send many bad keys from one address; the failed-authentication limit has its own test.
  // Gateways start beside other test files on a busy machine: the broker may answer slowly.
  const { tuning, env } = splitTuning(GATEWAY_TUNING, {
    AUTH_FAILURES_PER_MIN: '0',
    CONNECT_TIMEOUT_MS: '30000',
    ...settings,
  });
  const config: GatewayConfig = {
    ...loadGatewayConfig(
      {
        DATABASE_URL: db.url,
        REDIS_URL: process.env.REDIS_URL,
        KAFKA_BROKERS: process.env.KAFKA_BROKERS,
        LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
        REDIS_KEY_PREFIX: `test:${randomBytes(4).toString('hex')}:`,
        TRANSLATOR_URL: 'http://127.0.0.1:9',
        NLI_URL: 'http://127.0.0.1:9',
        WORKER_URL: 'http://127.0.0.1:9',
        ...env,
      },
      tuning,
    ),
    PORT: 0,
  };
  const service = await startGateway(config).catch(async (err: unknown) => {
    await db.drop();
    throw err;
  });
  const orm = service.context.deps.orm;
  if (!orm) throw new Error('gateway has no database');
  const store = new ApiKeyStore(orm);
  const [admin, client, revoked] = await Promise.all([
    store.create('admin', 'test admin'),
    store.create('client', 'test client'),
    store.create('client', 'revoked client'),
  ]);
  await store.revoke(revoked.id);
  const url = `http://127.0.0.1:${service.port}`;
  // Sent with a key so that this request does not use up a test's per-address limit.
  const openapi = (await (
    await fetch(`${url}/openapi.json`, { headers: { authorization: `Bearer ${admin.key}` } })
  ).json()) as OpenApiDoc;
  return {
    url,
    config,
    store,
    keys: { admin: admin.key, client: client.key, revoked: revoked.key },
    openapi,
    server: service.server,
    async close() {
      await service.stop();
      await db.drop();
    },
  };
}

/** A gateway in front of a real translator on the shared Apertium. */
export interface ApertiumStack {
  readonly gateway: TestGateway;
  readonly translator: TestTranslator;
  close(): Promise<void>;
}

/**
 * The real gateway and translator in-process, the translator on the shared Apertium (APy, started by
 * jest's global setup), with one hot cache as in a deployment: the gateway answers what the
 * translator stored.
 */
export async function startApertiumStack(): Promise<ApertiumStack> {
  const apertium = process.env.APERTIUM_URL;
  if (!apertium) throw new Error('APERTIUM_URL is not set; run the tests through jest (global setup)');
  const translator = await startTestTranslator({ APERTIUM_URL: apertium });
  const gateway = await startTestGateway({
    TRANSLATOR_URL: translator.url,
    REDIS_KEY_PREFIX: translator.config.REDIS_KEY_PREFIX,
  }).catch(async (err: unknown) => {
    await translator.close();
    throw err;
  });
  return {
    gateway,
    translator,
    async close() {
      await gateway.close();
      await translator.close();
    },
  };
}

/** Every operation of the served document: method, OpenAPI path and its access level. */
export function operations(
  doc: OpenApiDoc,
): { method: string; path: string; access: 'public' | 'client' | 'admin' }[] {
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ method, path, access: op['x-access'] })),
  );
}

/** A concrete URL path for an OpenAPI path, with a placeholder value in each parameter. */
export function concretePath(path: string, value = '00000000-0000-4000-8000-000000000000'): string {
  return path.replace(/\{\w+\}/g, value);
}

/**
 * The stable error name of an error body: `error` of the envelope, under /v1/ (OpenAI's shape)
 * `error.code` in upper case, in DeepL's and LibreTranslate's shapes the `code` beside their message.
 */
export function errorName(path: string, body: unknown): string | undefined {
  const { error, code } = (body ?? {}) as { error?: unknown; code?: unknown };
  if (path.startsWith('/v1/')) {
    const openAiCode = (error as { code?: unknown } | undefined)?.code;
    return typeof openAiCode === 'string' ? openAiCode.toUpperCase() : undefined;
  }
  if (typeof code === 'string') return code;
  return typeof error === 'string' ? error : undefined;
}

/** Rate limits switched off, for tests that mount routes on a bare app. */
export function noRateLimits(): RateLimits {
  return createRateLimits({
    redis: undefined,
    keyPrefix: 'test:',
    publicPoints: 0,
    perKeyPoints: 0,
    windowSeconds: 60,
    authFailuresPerMinute: 0,
  });
}

/** A translation in the gateway's hot cache, where the gateway answers it from without the translator. */
export async function cacheTranslation(
  gateway: TestGateway,
  pair: { readonly source: string; readonly target: string; readonly text: string },
  translatedText: string,
): Promise<void> {
  const redis = createClient({ url: process.env.REDIS_URL });
  await redis.connect();
  const entry = { translatedText, source: pair.source, engine: 'offline', truncated: false };
  try {
    await new HotCache(redis as never, gateway.config.REDIS_KEY_PREFIX).store(pair, {
      ...entry,
      cachedAt: new Date().toISOString(),
    });
  } finally {
    await redis.close();
  }
}
