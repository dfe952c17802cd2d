import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';

import type { Express, RequestHandler } from 'express';

import { ConfigError } from '../config.js';
import {
  contextFromHeaders,
  contextWithSpan,
  inContext,
  recordsOwnSpans,
  SpanKind,
  startSpan,
} from '../tracing.js';

/**
 * A handler that may take a request before Express does: it returns true when it has taken it (and
 * will answer or hand it to Express itself), false to let Express have it untouched.
 */
export type FastLane = (req: IncomingMessage, res: ServerResponse) => boolean;

/** Listens on host:port; a port that cannot be bound is a configuration error naming the setting. */
export function listen(
  app: Express,
  port: number,
  host: string,
  portSetting: string,
  lane?: FastLane,
): Promise<Server> {
  const handler = lane ? laneFirst(lane, app) : traced(app);
  return new Promise((resolve, reject) => {
    const server = createServer(handler);
    server.listen(port, host);
    server.once('listening', () => resolve(server));
    server.once('error', (err: NodeJS.ErrnoException) => {
      reject(new ConfigError(portSetting, `cannot listen on ${host}:${port} (${err.code ?? err.message})`));
    });
  });
}

/** Stops accepting connections, lets in-flight requests finish, then drops idle keep-alive sockets. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

declare module 'node:http' {
  interface IncomingMessage {
    /** Taken by a fast lane without a span (see `laneFirst`): Express gives it one if handed over. */
    spanless?: boolean;
  }
}

/**
 * The fast lane, then Express, each request in its SERVER span (`traced`); but when this process
 * records no spans of its own (nothing is exported) and the caller sent no trace, a request the lane
 * answers has no span: it would be an unrecorded root span whose ids reach nothing (the lanes write no
 * outbox rows, and the work of the lanes that read a body runs outside the span's context anyway),
 * and its start, context switch and end are a visible share of a cache hit's CPU (docs/decisions.md,
 * "Hot paths answered before Express (fast lanes)"). A request the lane hands to Express gets its span
 * there (`spanForHandedOver`), so Express's work runs in one as before.
 */
function laneFirst(lane: FastLane, app: Express): RequestListener {
  const tracedApp = traced(app);
  const tracedLane = traced((req, res) => {
    if (!lane(req, res)) app(req, res);
  });
  return (req, res) => {
    if (recordsOwnSpans() || req.headers.traceparent !== undefined) return tracedLane(req, res);
    req.spanless = true;
    if (lane(req, res)) return;
    req.spanless = false;
    tracedApp(req, res);
  };
}

/** First of Express's middleware: the span of a request a fast lane took without one and handed over. */
export const spanForHandedOver: RequestHandler = (req, res, next) => {
  if (!req.spanless) return next();
  req.spanless = false;
  inServerSpan(req, res, next);
};

/**
 * Each request in a SERVER span (`inServerSpan`) for all of its work.
 */
const traced =
  (handler: RequestListener): RequestListener =>
  (req, res) => {
    inServerSpan(req, res, () => handler(req, res));
  };

/**
 * Runs `work` in a SERVER span (HTTP semantic conventions), a child of the caller's `traceparent`
 * when it sends one, active for all the request's work, so logs, outbox rows and outgoing calls join
 * the caller's trace. Ended when the answer is done or the client goes away.
 */
function inServerSpan(req: IncomingMessage, res: ServerResponse, work: () => void): void {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  // The caller's context, read once for the span's parent and the request's work.
  const parent = contextFromHeaders(req.headers);
  const span = startSpan(
    req.method ?? 'HTTP',
    { 'http.request.method': req.method ?? '', 'url.path': path },
    { kind: SpanKind.SERVER, parent },
  );
  const end = () => {
    const route = (req as { route?: { path?: unknown }; baseUrl?: string }).route?.path;
    if (typeof route === 'string') {
      const template = `${(req as { baseUrl?: string }).baseUrl ?? ''}${route}`;
      span.setAttribute('http.route', template);
      span.updateName(`${req.method ?? 'HTTP'} ${template}`);
    }
    span.setAttribute('http.response.status_code', res.statusCode);
    if (res.statusCode >= 500) span.setStatus({ code: 2 });
    span.end();
  };
  res.once('close', end);
  inContext(contextWithSpan(parent, span), work);
}
