import type { IncomingMessage, ServerResponse } from 'node:http';

import {
  bindRequestLog,
  clientGone,
  perRegistry,
  plainJsonPost,
  readLaneBody,
  strictJson,
  toAppError,
  trackRequest,
} from '@tp/runtime';
import type { AppError, FastLane, RequestTracker } from '@tp/runtime';
import type { Express, Request } from 'express';
import { Counter, type Registry } from 'prom-client';
import proxyaddr from 'proxy-addr';

import type { ApiKeyStore } from '../auth/api-key.store.js';
import { rememberedPrincipal } from '../auth/remembered-principal.js';
import { expressPath, okEnvelope } from '../http/route.js';
import { parseRequest } from '../http/validate.js';
import type { RateLimits } from '../rate-limit/rate-limit.js';
import type { NliClient } from './nli-client.js';
import { MODERATE_NLI_PATH, moderateNliBody } from './nli.routes.js';
import type { GatewayCors } from '../http/cors.js';

export interface NliLaneOptions {
  readonly app: Express;
  readonly nli: NliClient;
  readonly keys: ApiKeyStore;
  readonly limits: RateLimits;
  readonly tracker: RequestTracker;
  readonly metrics: Registry;
  readonly bodyLimitBytes: number;
  /** CORS_ORIGINS: the headers Express's cors middleware would add to the answer. */
  readonly cors?: GatewayCors | undefined;
}

/** What became of the requests the lane took: answered by it, or handed to Express with an error. */
const laneCounter = perRegistry(
  (registry) =>
    new Counter({
      name: 'gateway_nli_lane_requests_total',
      help: 'NLI checks the nli lane took, by outcome: answered by it, or handed to Express with an error',
      labelNames: ['outcome'],
      registers: [registry],
    }),
);

/** The Express route the lane stands for: the span's route and the label of the log and metrics. */
const ROUTE = { path: expressPath(MODERATE_NLI_PATH) };
const routeLabel = () => ROUTE.path;
const BODY_SCHEMAS = { body: moderateNliBody };

/**
 * Answers POST /api/v1/moderate/nli before Express, with the route's steps in its order and its
 * answer (docs/benchmarks.md, bench:nli): the per-key limit, body, validation with the route's
 * schema, the call to the nli service with the route's client, the envelope. It takes only plain
 * requests (UTF-8 JSON of a known size within the body limit) of an API key this process
 * remembers as valid and without a daily request budget, from an address not blocked for failed
 * authentications; everything else is Express's, untouched. Once it has counted a request against
 * the key's limit, every error (429, 400, the nli service's own) is handed to Express to answer, so
 * errors are still written in one place and the request is counted once.
 */
export function nliLane(options: NliLaneOptions): FastLane {
  const { app, nli, keys, limits, tracker } = options;
  const counter = laneCounter(options.metrics);
  const [answered, handedOver] = [counter.labels('answered'), counter.labels('handed_over')];
  // Express compiles its "trust proxy" setting into this function; the lane finds the client address
  // the way req.ip does.
  const trusted = app.get('trust proxy fn') as Parameters<typeof proxyaddr>[1];
  const handOver = (req: IncomingMessage, res: ServerResponse, error: AppError) => {
    handedOver.inc();
    req.laneError = error;
    app(req, res);
  };
  const answer = async (req: IncomingMessage, res: ServerResponse, raw: string, keyId: string) => {
    const limited = limits.countKey(res, keyId);
    if (limited) return handOver(req, res, limited);
    const body = strictJson(raw);
    (req as { body?: unknown }).body = body;
    if (body === undefined) return handOver(req, res, toAppError({ type: 'entity.parse.failed' }));
    const text =
      plainText(body) ?? (parseRequest(BODY_SCHEMAS, req as Request).body as { text: string }).text;
    const result = await nli.detect(text, req.id, clientGone(res));
    if (res.headersSent || res.destroyed) return;
    const json = JSON.stringify(okEnvelope(result));
    options.cors?.set(req, res);
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(json),
    });
    res.end(json);
    answered.inc();
  };
  return (req, res) => {
    if (!plainJsonPost(req, MODERATE_NLI_PATH, options.bodyLimitBytes)) return false;
    const principal = rememberedPrincipal(keys, req.headers.authorization);
    if (!principal || principal.limits.requestsPerDay !== null) return false;
    if (limits.authFailures.blocked(() => proxyaddr(req, trusted))) return false;
    trackRequest(tracker, req, res, routeLabel);
    // The span of the request is named after the route, as for requests Express routes.
    (req as { route?: unknown }).route = ROUTE;
    bindRequestLog(req as Request, { api_key_id: principal.keyId });
    readLaneBody(
      req,
      (raw) => {
        answer(req, res, raw, principal.keyId).catch((err: unknown) => {
          if (!res.headersSent) handOver(req, res, toAppError(err));
        });
      },
      // The client went away mid-body: Express logs it as an aborted request.
      (err) => handOver(req, res, toAppError({ status: 400, message: err.message })),
    );
    return true;
  };
}

/**
 * The text of the usual body (an object whose only key is a non-empty string `text`), checked by
 * hand; undefined for anything else, which the route's schema then judges. Never accepts what the
 * schema refuses.
 */
function plainText(body: object): string | undefined {
  if (Array.isArray(body)) return undefined;
  const { text } = body as { text?: unknown };
  return typeof text === 'string' && text.length > 0 && Object.keys(body).length === 1 ? text : undefined;
}
