import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { RequestHandler } from 'express';
import type { Registry } from 'prom-client';

import type { Logger } from '../logger.js';
import { httpDurationHistogram } from '../metrics.js';

/** The route label of requests no route took: metric labels never come from the raw path. */
export const UNMATCHED_ROUTE = 'unmatched';

const REQUEST_ID = /^[\w.:-]{1,128}$/;
const QUIET_PATHS = new Set(['/health', '/ready', '/metrics']);

declare module 'node:http' {
  interface IncomingMessage {
    /** Request id: the client's x-request-id when well formed, otherwise a new UUID. */
    id: string;
  }
}

/**
 * Labels the requests a mounted sub-app answers (`app.use(path, ...)`: no route of its own) with the
 * mount path, so they are counted under it rather than as unmatched.
 */
export const routeLabel =
  (label: string): RequestHandler =>
  (_req, res, next) => {
    res.locals.routeLabel = label;
    next();
  };

/** Where `trackRequest` writes: the access log and the request-duration histogram. */
export interface RequestTracker {
  /** The access log: pino writes each line (`logger[level](fields, msg)`). */
  readonly logger: Logger;
  observe(method: string, route: string, status: number, seconds: number): void;
}

export function requestTracker(logger: Logger, metrics: Registry): RequestTracker {
  const histogram = httpDurationHistogram(metrics);
  // One labelled child per route, method and status, found by three map lookups of values the
  // request already holds, instead of prom-client hashing a label object (or a key string joined
  // from them) on every request. All three are bounded: route templates or fixed labels, the
  // methods Node accepts, status codes.
  type Child = ReturnType<typeof histogram.labels>;
  const series = new Map<string, Map<string, Map<number, Child>>>();
  const childOf = (method: string, route: string, status: number): Child => {
    let byMethod = series.get(route);
    if (!byMethod) series.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let child = byStatus.get(status);
    if (!child) byStatus.set(status, (child = histogram.labels({ method, route, status: String(status) })));
    return child;
  };
  // Access-log lines hold a fixed set of fields, never headers or bodies: nothing to redact.
  return {
    logger: logger.child({}, { redact: [] }),
    observe(method, route, status, seconds) {
      childOf(method, route, status).observe(seconds);
    },
  };
}

/**
 * Gives a request its id (the client's x-request-id when well formed, else a UUID), echoes it, and
 * writes one access-log line and one duration sample when the answer is done or the client goes
 * away. The log line has method, URL, client address, status and time, and never headers (they may
 * carry API keys).
 */
function trackRequest(
  tracker: RequestTracker,
  req: IncomingMessage,
  res: ServerResponse,
  route: () => string,
): void {
  const started = performance.now();
  const incoming = req.headers['x-request-id'];
  const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
  req.id = id;
  // Ids from outside reach every log line: only well-formed ones are kept (1-128 word characters, `.:-`).
  const correlation = req.headers['x-correlation-id'];
  if (typeof correlation !== 'string' || !REQUEST_ID.test(correlation)) req.headers['x-correlation-id'] = id;
  res.setHeader('x-request-id', id);
  const done = (aborted: boolean) => {
    const ms = performance.now() - started;
    const path = route();
    tracker.observe(req.method ?? '', path, res.statusCode, ms / 1000);
    if (QUIET_PATHS.has(path)) return;
    const line = {
      req_id: id,
      correlation_id: req.headers['x-correlation-id'] as string | undefined,
      method: req.method,
      // Express rewrites req.url inside mounted routers; originalUrl is what the client asked for.
      url: (req as { originalUrl?: string }).originalUrl ?? req.url,
      remote: req.socket.remoteAddress,
      status: res.statusCode,
      ms: Math.round(ms * 10) / 10,
    };
    if (aborted) tracker.logger.warn(line, 'request aborted');
    else if (res.statusCode >= 500) tracker.logger.error(line, 'request failed');
    else tracker.logger.info(line, 'request completed');
  };
  // 'close' follows 'finish' on every response, and comes alone when the client went away first.
  // Node emits it once per response: `on`, not `once` (no wrapper to make and remove per request).
  res.on('close', () => done(!res.writableFinished));
}

/**
 * Per request, in one middleware: `trackRequest`, labelled with the matched route. Not pino-http:
 * its two child loggers per request (one serialising the whole request) cost 2.3 times the CPU of
 * this middleware (docs/decisions.md, "The access log is written by pino").
 */
export function requestContext(tracker: RequestTracker): RequestHandler {
  return (req, res, next) => {
    // Only route templates or a fixed label: a label from the raw path lets anyone add series forever.
    trackRequest(tracker, req, res, () =>
      String(req.route?.path ?? (res.locals.routeLabel as string | undefined) ?? UNMATCHED_ROUTE),
    );
    next();
  };
}
