import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';

import type { Express } from 'express';

import { ConfigError } from '../config.js';
import { contextFromHeaders, contextWithSpan, inContext, SpanKind, startSpan } from '../tracing.js';

/** Listens on host:port; a port that cannot be bound is a configuration error naming the setting. */
export function listen(app: Express, port: number, host: string, portSetting: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer(traced(app));
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
  // Emitted once per response: `on`, not `once` (no wrapper to make and remove per request).
  res.on('close', end);
  inContext(contextWithSpan(parent, span), work);
}
