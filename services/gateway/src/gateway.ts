import { GlossaryVersions, type Orm } from '@tp/db';
import { producerDefaultsOf } from '@tp/kafka';
import { DeadLetterIndex } from '@tp/pipeline';
import { processReadinessCheck, startService, type ServiceContext, type ServiceParts } from '@tp/platform';
import type { DependencyCheck } from '@tp/runtime';
import { EventCodec } from '@tp/schemas';
import { closeRedis, connectInBackground, createCachingRedis, type RedisClient } from '@tp/redis';
import { HotCache } from '@tp/translation';
import type { IncomingMessage } from 'node:http';

import type { Express, Request } from 'express';
import proxyaddr from 'proxy-addr';
import type { Kafka } from 'kafkajs';

import { detectRoute } from './detect/detect.routes.js';
import { deadLetterRoutes } from './admin/dead-letters/dead-letters.routes.js';
import { adminGlossaries, translateAdminRoutes } from './admin/translate/translate-admin.routes.js';
import { deeplErrorShape } from './compat-deepl/deepl-wire.js';
import { deeplRoutes } from './compat-deepl/deepl.routes.js';
import { libreErrorShapes } from './compat-libretranslate/libre-wire.js';
import { libreRoutes } from './compat-libretranslate/libre.routes.js';
import { ApiKeyStore } from './auth/api-key.store.js';
import type { GatewayConfig } from './config.js';
import { contentRoutes } from './content/content.routes.js';
import { requestMetricsRoute } from './console/request-metrics.routes.js';
import { serveConsole } from './console/serve-console.js';
import { gatewayCors } from './http/cors.js';
import { mountRoutes } from './http/mount.js';
import { buildOpenApiDocument, serveOpenApi, type OpenApiDocument } from './http/openapi.js';
import type { AnyRoute } from './http/route.js';
import { keyRoutes } from './keys/keys.routes.js';
import { NliClient } from './nli/nli-client.js';
import { nliRoutes } from './nli/nli.routes.js';
import { chatRoutes } from './chat/chat.routes.js';
import { ChatUsageRecorder } from './chat/usage/record-usage.js';
import { resolveProviders } from './chat/chat-config.js';
import { ChatGuardrail } from './chat/guardrail.js';
import { openAiErrorShape } from './chat/openai-errors.js';
import { ProviderRegistry } from './chat/providers.js';
import { chatUsageRoutes } from './chat/usage/chat-usage.routes.js';
import { ChatUsageStore } from './chat/usage/chat-usage.store.js';
import type { ModerateText } from './moderation/moderate/moderate-text.js';
import { createModeration } from './moderation/moderation.routes.js';
import { whoamiRoute } from './keys/whoami.routes.js';
import { usageRoute } from './usage/usage.routes.js';
import { CharacterTally } from './usage/character-tally.js';
import { CharacterUsage } from './usage/character-usage.js';
import { BudgetStore } from './keys/budgets/budget.store.js';
import { createRateLimits } from './rate-limit/rate-limit.js';
import { translateStatusRoute } from './status/translate-status.routes.js';
import { ANONYMOUS_MAX_TEXT_CHARS, translateRoutes, translateText } from './translate/translate.routes.js';
import { readUsage } from './usage/read-usage.js';
import { TranslatorClient } from './translate/translator-client.js';

export const GATEWAY_VERSION = '0.1.0';

/**
 * Public edge (port 3000). Needs Postgres (API keys, outbox of commands), Redis (rate limits, caches)
 * and Kafka (admin views such as consumer lag); reports the internal services it calls as optional,
 * each as its own /ready reports it (a not-ready nli service degrades the gateway, never stops it).
 */
export function startGateway(config: GatewayConfig) {
  return startService({
    name: 'gateway',
    config,
    needs: { postgres: true, redis: true, kafka: true },
    errorShapes: [openAiErrorShape, deeplErrorShape, ...libreErrorShapes],
    compose: (context) => composeGateway(config, context),
  });
}

/** The parts the gateway's routes share, each made once. */
interface GatewayParts {
  readonly config: GatewayConfig;
  readonly context: ServiceContext;
  readonly orm: Orm;
  readonly codec: EventCodec;
  readonly keys: ApiKeyStore;
  readonly budgets: BudgetStore;
  readonly translator: TranslatorClient;
  readonly nli: NliClient;
  readonly hotCache: HotCache;
  /** Characters translated per key, written once a second (its stop writes the rest). */
  readonly tally: CharacterTally;
  /** The connection the hot cache and the read cache read through, its reads kept in memory. */
  readonly cacheRedis: RedisClient | undefined;
  /** The services the gateway calls, on its /ready and status page as each one's own /ready reports it. */
  readonly services: readonly DependencyCheck[];
}

/**
 * The gateway's composition root: its stores, clients and caches made once, the routes built from
 * them (the same list feeds Express and the OpenAPI document), then what the platform mounts and runs.
 */
export function composeGateway(config: GatewayConfig, context: ServiceContext) {
  const orm = required(context.deps.orm, 'postgres');
  const budgets = new BudgetStore(orm);
  const cacheRedis = cachingConnection(config, context);
  const parts: GatewayParts = {
    config,
    context,
    orm,
    codec: new EventCodec(),
    keys: new ApiKeyStore(orm, config.API_KEY_CACHE_MS),
    budgets,
    translator: new TranslatorClient(
      config.TRANSLATOR_URL,
      config.TRANSLATE_TIMEOUT_MS,
      config.LANGUAGES_TIMEOUT_MS,
    ),
    nli: new NliClient(config.NLI_URL, config.NLI_TIMEOUT_MS),
    hotCache: new HotCache(cacheRedis, config.REDIS_KEY_PREFIX),
    tally: new CharacterTally(budgets, context.logger),
    cacheRedis,
    services: [
      processReadinessCheck('translator', config.TRANSLATOR_URL),
      processReadinessCheck('nli', config.NLI_URL),
    ],
  };
  const limits = rateLimits(context, config);
  const routes = gatewayRoutes(parts);
  return {
    routes,
    checks: parts.services,
    tasks: [
      { start: () => Promise.resolve(), stop: () => parts.tally.stop() },
      ...(cacheRedis ? [{ start: () => Promise.resolve(), stop: () => closeRedis(cacheRedis) }] : []),
    ],
    edge: { guard: limits.guard, metricsAllowed: metricsAccess(config.METRICS_ALLOW), terseReadiness: true },
    mount: (app: Express) => {
      // Read per request by req.ip, so the guard mounted before this line uses it too.
      app.set('trust proxy', trustProxy(config.TRUST_PROXY));
      const cors = gatewayCors(config.CORS_ORIGINS);
      if (cors) app.use(cors);
      const { keys, budgets } = parts;
      // The API first: its requests do not test the console's and the document's paths on the way
      // (no path of one is a path of the other).
      mountRoutes(app, routes, { keys, budgets, limits, bodyLimitKb: config.BODY_LIMIT_KB });
      serveConsole(app);
      serveOpenApi(app, gatewayDocument(routes));
    },
  } satisfies ServiceParts & { routes: AnyRoute[] };
}

/** Every route the gateway serves, in one list. */
function gatewayRoutes(parts: GatewayParts): AnyRoute[] {
  const { config, context, orm, keys, budgets, translator, nli } = parts;
  const moderation = createModeration({
    orm,
    logger: context.logger,
    nliDetect: (text, signal, id) => nli.detect(text, id ?? '', signal),
    nliTimeoutMs: config.NLI_TIMEOUT_MS,
  });
  const chatUsage = new ChatUsageStore(orm);
  const textLimit = {
    maxTextChars: keyedTextLimit(config.MAX_TEXT_CHARS),
    keyedMaxTextChars: config.MAX_TEXT_CHARS,
  };
  const adminOptions = {
    orm,
    codec: parts.codec,
    translator,
    topicPrefix: config.KAFKA_TOPIC_PREFIX,
    maxTextChars: config.MAX_TEXT_CHARS,
    redis: context.deps.redis,
    keyPrefix: config.REDIS_KEY_PREFIX,
    requestThrottleSeconds: config.CONTENT_REQUEST_THROTTLE_S,
    logger: context.logger,
  };
  const versions = new GlossaryVersions(orm, config.GLOSSARY_REFRESH_MS);
  const glossaries = adminGlossaries(adminOptions, versions);
  const usage = new CharacterUsage(budgets, parts.tally, context.metrics);
  const translation = { translator, cache: parts.hotCache, usage, glossaries: versions, ...textLimit };
  const translate = translateText(translation);
  return [
    ...translateRoutes(translation),
    detectRoute({ translator, ...textLimit }),
    ...nliRoutes(nli, { maxTextChars: config.NLI_MAX_TEXT_CHARS }),
    ...moderation.routes,
    ...gatewayChatRoutes(parts, moderation.moderate, chatUsage),
    ...chatUsageRoutes(chatUsage),
    ...gatewayContentRoutes(parts),
    whoamiRoute(budgets),
    usageRoute(budgets),
    ...keyRoutes(keys, budgets),
    gatewayStatusRoute(parts),
    ...deadLetterRoutes(new DeadLetterIndex(orm), parts.codec),
    requestMetricsRoute(context.metrics),
    ...translateAdminRoutes(adminOptions, glossaries),
    ...deeplRoutes({
      translator,
      translate,
      glossaries,
      readUsage: (principal) => readUsage(budgets, principal),
    }),
    ...libreRoutes({
      translator,
      translate,
      maxTextChars: textLimit.maxTextChars,
      anonymousMaxTextChars: Math.min(ANONYMOUS_MAX_TEXT_CHARS, config.MAX_TEXT_CHARS),
    }),
  ] as AnyRoute[];
}

/** The OpenAI-compatible chat routes, guarded by moderation and metered per key. */
function gatewayChatRoutes(
  { config, context, budgets }: GatewayParts,
  moderate: ModerateText,
  chatUsage: ChatUsageStore,
) {
  return chatRoutes({
    registry: new ProviderRegistry(resolveProviders(config.CHAT_PROVIDERS), config.CHAT_MODEL_ALIASES),
    guardrail: new ChatGuardrail(config.CHAT_GUARDRAIL, moderate, {
      nliMaxChars: config.NLI_MAX_TEXT_CHARS,
      nliConcurrency: config.CHAT_NLI_CONCURRENCY,
    }),
    usage: new ChatUsageRecorder(chatUsage, context.logger, context.metrics, {
      attempts: config.CHAT_USAGE_WRITE_ATTEMPTS,
      firstDelayMs: config.CHAT_USAGE_RETRY_MS,
    }),
    budgets,
    stream: { stallMs: config.CHAT_STREAM_STALL_MS },
  });
}

/** The content routes: reads of translated content, reports of changes, deletions. */
function gatewayContentRoutes({ config, context, orm, codec, cacheRedis }: GatewayParts) {
  return contentRoutes({
    orm,
    codec,
    redis: context.deps.redis,
    cacheRedis,
    keyPrefix: config.REDIS_KEY_PREFIX,
    topicPrefix: config.KAFKA_TOPIC_PREFIX,
    maxTextChars: config.MAX_TEXT_CHARS,
    readCacheTtlSeconds: config.CONTENT_READ_CACHE_TTL_S,
    requestThrottleSeconds: config.CONTENT_REQUEST_THROTTLE_S,
    ...(context.deps.kafka ? { topicLimit: topicLimitOf(context.deps.kafka) } : {}),
  });
}

/** The status page: the gateway's own checks and a probe of each service behind it. */
function gatewayStatusRoute({ config, context, translator, orm, services }: GatewayParts) {
  return translateStatusRoute({
    checks: [...context.deps.checks, ...services],
    probes: [
      { name: 'translator', baseUrl: config.TRANSLATOR_URL },
      { name: 'nli', baseUrl: config.NLI_URL },
      { name: 'worker', baseUrl: config.WORKER_URL },
    ],
    translator,
    kafka: context.deps.kafka,
    orm,
    topicPrefix: config.KAFKA_TOPIC_PREFIX,
  });
}

/**
 * The OpenAPI document GET /openapi.json serves for these routes. A reviewed copy is committed
 * (services/gateway/openapi.json, `npm run openapi:write`) and the contract test requires the two equal.
 */
export function gatewayDocument(routes: readonly AnyRoute[]): OpenApiDocument {
  return buildOpenApiDocument(routes, GATEWAY_VERSION);
}

/** /metrics is for scrapers: a direct peer in METRICS_ALLOW, never a request relayed by a proxy. */
function metricsAccess(allow: readonly string[]): (req: IncomingMessage) => boolean {
  const allowed = proxyaddr.compile([...allow]);
  return (req) =>
    req.headers['x-forwarded-for'] === undefined &&
    req.headers.forwarded === undefined &&
    allowed(req.socket.remoteAddress ?? '', 0);
}

/**
 * Reads kept in the gateway's memory, at most this many (the least recently used go first): a merged
 * view is 1-3 KB, a hot-cache entry less, so about 10 MB at the most.
 */
const CACHED_READS = 4096;

/**
 * A second Redis connection for the caches the gateway reads (the hot cache, the read cache), whose
 * reads stay in memory until Redis says the key changed (createCachingRedis): a cache hit costs no
 * round trip. Undefined without Redis; connecting in the background like the first.
 */
function cachingConnection(config: GatewayConfig, context: ServiceContext): RedisClient | undefined {
  if (!context.deps.redis) return undefined;
  const client = createCachingRedis({
    url: config.REDIS_URL,
    logger: context.logger,
    maxEntries: CACHED_READS,
  });
  connectInBackground(client);
  return client;
}

const rateLimits = (context: ServiceContext, config: GatewayConfig) =>
  createRateLimits({
    redis: context.deps.redis,
    keyPrefix: config.REDIS_KEY_PREFIX,
    publicPoints: config.RATE_LIMIT_PUBLIC,
    perKeyPoints: config.RATE_LIMIT_PER_KEY,
    windowSeconds: config.RATE_LIMIT_WINDOW_S,
    authFailuresPerMinute: config.AUTH_FAILURES_PER_MIN,
  });

/**
 * The text limit of a public translation: MAX_TEXT_CHARS for a request authenticated with a key of any
 * role (a bad key was refused before the handler), the spec's 5000 for an anonymous one.
 */
function keyedTextLimit(max: number): (req: IncomingMessage) => Promise<number> {
  const anonymous = Math.min(ANONYMOUS_MAX_TEXT_CHARS, max);
  return (req) => Promise.resolve((req as Request).res?.locals.principal ? max : anonymous);
}

/** The max.message.bytes of a topic, read through the client's shared TopicLimits. */
const topicLimitOf = (kafka: Kafka) => {
  const { limits } = producerDefaultsOf(kafka);
  return (topic: string) => limits.maxMessageBytes(topic);
};

function trustProxy(value: string): boolean | number | string {
  if (value === 'false' || value === '') return false;
  if (value === 'true') return true;
  // not user text: the TRUST_PROXY setting
  return /^\d+$/.test(value) ? Number(value) : value;
}

function required<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new Error(`gateway started without ${name}`);
  return value;
}
