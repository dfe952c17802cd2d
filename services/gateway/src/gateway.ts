import { httpHealthCheck, startService, type ServiceContext } from '@tp/platform';
import { HotCache } from '@tp/translation';
import cors from 'cors';
import type { Express } from 'express';

import { ApiKeyStore } from './auth/api-key.store.js';
import type { GatewayConfig } from './config.js';
import { mountRoutes } from './http/mount.js';
import { buildOpenApiDocument, serveOpenApi } from './http/openapi.js';
import type { AnyRoute } from './http/route.js';
import { keyRoutes } from './keys/keys.routes.js';
import { NliClient } from './nli/nli-client.js';
import { nliRoutes } from './nli/nli.routes.js';
import { moderationRoutes } from './moderation/moderation.routes.js';
import { whoamiRoute } from './keys/whoami.routes.js';
import { createRateLimits } from './rate-limit/rate-limit.js';
import { translateStatusRoute } from './status/translate-status.routes.js';
import { translateRoutes } from './translate/translate.routes.js';
import { TranslatorClient } from './translate/translator-client.js';

export const GATEWAY_VERSION = '0.1.0';

/**
 * Public edge (port 3000). Needs Postgres (API keys, outbox of commands), Redis (rate limits, caches)
 * and Kafka (admin views such as consumer lag); reports the internal services it calls as optional.
 */
export function startGateway(config: GatewayConfig) {
  return startService({
    name: 'gateway',
    config,
    needs: { postgres: true, redis: true, kafka: true },
    extraChecks: [
      httpHealthCheck('translator', config.TRANSLATOR_URL),
      httpHealthCheck('nli', config.NLI_URL),
    ],
    routes: (app, context) => addGatewayRoutes(app, context, config),
  });
}

/** Every route the gateway serves, in one list: it feeds Express and the OpenAPI document alike. */
export function gatewayRoutes(config: GatewayConfig, context: ServiceContext, keys: ApiKeyStore): AnyRoute[] {
  const translator = new TranslatorClient(
    config.TRANSLATOR_URL,
    config.TRANSLATE_TIMEOUT_MS,
    config.LANGUAGES_TIMEOUT_MS,
  );
  const nli = new NliClient(config.NLI_URL, config.NLI_TIMEOUT_MS);
  return [
    ...translateRoutes({
      translator,
      cache: new HotCache(context.deps.redis, config.REDIS_KEY_PREFIX),
      maxTextChars: config.MAX_TEXT_CHARS,
    }),
    ...nliRoutes(nli),
    ...moderationRoutes({
      orm: required(context.deps.orm, 'postgres'),
      logger: context.logger,
      nliDetect: (text, signal, id) => nli.detect(text, id ?? '', signal),
      nliTimeoutMs: config.NLI_TIMEOUT_MS,
    }),
    whoamiRoute,
    ...keyRoutes(keys),
    translateStatusRoute(context.deps.checks, [
      { name: 'translator', baseUrl: config.TRANSLATOR_URL },
      { name: 'nli', baseUrl: config.NLI_URL },
      { name: 'worker', baseUrl: config.WORKER_URL },
    ]),
  ] as AnyRoute[];
}

function addGatewayRoutes(app: Express, context: ServiceContext, config: GatewayConfig): void {
  app.set('trust proxy', trustProxy(config.TRUST_PROXY));
  if (config.CORS_ORIGINS.length > 0) {
    const origin = config.CORS_ORIGINS.includes('*') ? '*' : config.CORS_ORIGINS;
    app.use(
      cors({ origin, exposedHeaders: ['x-request-id', 'retry-after', 'content-language'], maxAge: 600 }),
    );
  }
  const keys = new ApiKeyStore(required(context.deps.orm, 'postgres'), config.API_KEY_CACHE_MS);
  const routes = gatewayRoutes(config, context, keys);
  serveOpenApi(app, buildOpenApiDocument(routes, GATEWAY_VERSION));
  mountRoutes(app, routes, {
    keys,
    limits: createRateLimits({
      redis: required(context.deps.redis, 'redis'),
      keyPrefix: config.REDIS_KEY_PREFIX,
      publicPoints: config.RATE_LIMIT_PUBLIC,
      perKeyPoints: config.RATE_LIMIT_PER_KEY,
      windowSeconds: config.RATE_LIMIT_WINDOW_S,
    }),
    bodyLimitKb: config.BODY_LIMIT_KB,
  });
}

function trustProxy(value: string): boolean | number | string {
  if (value === 'false' || value === '') return false;
  if (value === 'true') return true;
  return /^\d+$/.test(value) ? Number(value) : value;
}

function required<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new Error(`gateway started without ${name}`);
  return value;
}
