import type { IncomingMessage, ServerResponse } from 'node:http';

import {
  clientGone,
  perRegistry,
  plainJsonPost,
  readLaneBody,
  strictJson,
  toAppError,
  trackRequest,
  type AppError,
  type FastLane,
  type RequestTracker,
} from '@tp/runtime';
import type { Express } from 'express';
import { Counter, type Registry } from 'prom-client';

import type { TranslateText } from './translate-text.js';
import { DEFAULT_SOURCE, requestOrigin, translateBodyLimit, type TranslateBody } from './translate.routes.js';

const PATH = '/translate';
const ROUTE = { path: PATH };
const JSON_TYPE = 'application/json; charset=utf-8';

export interface TranslateLaneOptions {
  readonly app: Express;
  readonly translateText: Pick<TranslateText, 'execute'>;
  readonly tracker: RequestTracker;
  readonly maxTextChars: number;
  readonly metrics: Registry;
}

const laneCounter = perRegistry(
  (registry) =>
    new Counter({
      name: 'translator_translate_lane_requests_total',
      help: 'POST /translate requests the translate lane took, by outcome: answered by it, or handed to Express',
      labelNames: ['outcome'],
      registers: [registry],
    }),
);

/**
 * Answers the gateway's POST /translate before Express, with the route's steps and the route's
 * answer: the request tracked as Express would (id, access log, duration under `/translate`), the
 * usual body (`text`, `target`, maybe `source`, all non-empty strings) checked by hand, the use case,
 * the result as JSON. Express's routing, `requireJson`, body-parser, zod and `res.json` were about a
 * sixth of the translator's CPU per cache miss (docs/benchmarks.md). Requests that are not plain JSON
 * posts go to Express untouched; any other body goes there already read (`req.body`, which
 * body-parser leaves alone once the request is read), for the route's schema to refuse with its
 * issues; every error is handed over (`laneError`) and answered by the one error handler.
 */
export function translateLane(options: TranslateLaneOptions): FastLane {
  const { app, translateText, tracker } = options;
  const bodyLimit = translateBodyLimit(options.maxTextChars);
  const counter = laneCounter(options.metrics);
  const [answered, handedOver] = [counter.labels('answered'), counter.labels('handed_over')];
  const handOver = (req: IncomingMessage, res: ServerResponse, error?: AppError) => {
    handedOver.inc();
    if (error) req.laneError = error;
    app(req, res);
  };
  const answer = async (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const body = strictJson(raw);
    if (body === undefined) return handOver(req, res, toAppError({ type: 'entity.parse.failed' }));
    const plain = plainBody(body);
    if (!plain) {
      (req as { body?: unknown }).body = body;
      return handOver(req, res);
    }
    const signal = clientGone(res);
    try {
      const result = await translateText.execute(plain, requestOrigin(req, signal));
      const json = JSON.stringify(result);
      res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(json) });
      res.end(json);
      answered.inc();
    } catch (err) {
      // The caller is gone: nobody to answer (as the route does).
      if (!signal.aborted && !res.headersSent) handOver(req, res, toAppError(err));
    }
  };
  return (req, res) => {
    if (!plainJsonPost(req, PATH, bodyLimit)) return false;
    trackRequest(tracker, req, res, () => PATH);
    // The request's span, when there is one, is named after the route, as for requests Express routes.
    (req as { route?: unknown }).route = ROUTE;
    readLaneBody(
      req,
      (raw) => void answer(req, res, raw),
      (err) => handOver(req, res, toAppError({ status: 400, message: err.message })),
    );
    return true;
  };
}

/**
 * The body as the route's schema (`translateBody`) gives it, for the usual shape only: an object
 * whose keys are `text` and `target`, maybe `source`, each a non-empty string. Undefined for anything
 * else, which the schema then judges; never accepts what the schema refuses.
 */
function plainBody(body: object): TranslateBody | undefined {
  if (Array.isArray(body)) return undefined;
  const { text, source, target } = body as Record<string, unknown>;
  if (Object.keys(body).length !== (source === undefined ? 2 : 3)) return undefined;
  if (!nonEmpty(text) || !nonEmpty(target) || (source !== undefined && !nonEmpty(source))) return undefined;
  return { text, source: source ?? DEFAULT_SOURCE, target };
}

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value.length > 0;
