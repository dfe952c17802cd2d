import { randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';

import express, { type ErrorRequestHandler, type Express, type Request, type RequestHandler } from 'express';
import type { Registry } from 'prom-client';

import { ConfigError } from './config.js';
import { AppError, internalError, notFound, type ErrorCode } from './errors.js';
import type { Logger } from './logger.js';
import { httpDurationHistogram } from './metrics.js';
import { checkReadiness, type DependencyCheck, type ReadinessReport } from './readiness.js';

export interface HttpAppOptions {
  readonly service: string;
  readonly logger: Logger;
  readonly metrics: Registry;
  readonly checks: readonly DependencyCheck[];
  readonly edge?: EdgeOptions;
}

/** What a process facing the public adds to the common routes (the gateway). */
export interface EdgeOptions {
  /** Runs before every route but /health (the gateway's per-address rate limit). */
  readonly guard?: RequestHandler;
  /** Whether this request may read /metrics; others get 404. */
  readonly metricsAllowed?: (req: IncomingMessage) => boolean;
  /** /ready answers each dependency's state without its error text (that stays in the admin status). */
  readonly terseReadiness?: boolean;
}

/** The route label of requests no route took: metric labels never come from the raw path. */
export const UNMATCHED_ROUTE = 'unmatched';

const REQUEST_ID = /^[\w.:-]{1,128}$/;
const QUIET_PATHS = new Set(['/health', '/ready', '/metrics']);

/**
 * Express app with what every process serves: request/correlation ids (echoed as x-request-id),
 * JSON access logs, request metrics, GET /health (liveness), /ready (dependencies), /metrics.
 * Add routes, then call finishHttpApp() for the 404 and error mapping.
 */
export function createHttpApp({ service, logger, metrics, checks, edge }: HttpAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  // API answers are not cached by clients; hashing every body for an ETag is wasted work.
  app.set('etag', false);
  app.set('logger', logger);
  const tracker = requestTracker(logger, metrics);
  // Fast lanes in front of Express log and count through the same tracker (see appTracker).
  app.set('tracker', tracker);
  app.use(requestContext(tracker));
  app.get('/health', (_req, res) => {
    res.json({ status: 'ok', service, uptime_s: Math.round(process.uptime()) });
  });
  if (edge?.guard) app.use(edge.guard);
  app.get('/ready', async (_req, res) => {
    const report = await checkReadiness(checks);
    const shown = edge?.terseReadiness ? terse(report) : report;
    res.status(report.status === 'ready' ? 200 : 503).json({ service, ...shown });
  });
  app.get('/metrics', async (req, res, next) => {
    if (edge?.metricsAllowed && !edge.metricsAllowed(req)) {
      next();
      return;
    }
    res.type(metrics.contentType).send(await metrics.metrics());
  });
  return app;
}

/** The report without error text: raw driver messages name hosts, users and versions. */
const terse = (report: ReadinessReport): ReadinessReport => ({
  status: report.status,
  dependencies: Object.fromEntries(
    Object.entries(report.dependencies).map(([name, { status, required, latency_ms }]) => [
      name,
      { status, required, latency_ms },
    ]),
  ),
});

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

/**
 * Unknown routes -> 404; AppError -> its status and envelope; body-parser and URL decoding faults ->
 * their 4xx; anything else -> 500 without details. Routes under /v1/ answer in the OpenAI error shape.
 */
export function finishHttpApp(app: Express): Express {
  app.use((req, _res, next) => next(notFound(`no route for ${req.method} ${req.path}`)));
  const handler: ErrorRequestHandler = (err, req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const error = toAppError(err);
    if (error.httpStatus >= 500) requestLog(req).error({ err }, 'request failed');
    for (const [name, value] of Object.entries(error.headers ?? {})) res.setHeader(name, value);
    res.status(error.httpStatus).json(errorBody(error, req.path, req.id as string));
  };
  app.use(handler);
  return app;
}

/** The error body: `{code, error, message, details?, request_id}`, or OpenAI's shape under /v1/. */
export function errorBody(error: AppError, path: string, requestId: string): object {
  if (path.startsWith('/v1/')) return openAiErrorBody(error);
  return {
    code: error.numeric,
    error: error.code,
    message: error.message,
    ...(error.details === undefined ? {} : { details: error.details }),
    request_id: requestId,
  };
}

const OPENAI_TYPES: Record<number, string> = {
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
};

/** OpenAI's own codes where ours differ: SDKs and tools match on `invalid_api_key`. */
const OPENAI_CODES: Partial<Record<ErrorCode, string>> = {
  API_KEY_INVALID: 'invalid_api_key',
  API_KEY_MALFORMED: 'invalid_api_key',
  API_KEY_REVOKED: 'invalid_api_key',
  QUOTA_EXCEEDED: 'insufficient_quota',
};

/** OpenAI's own types where the status does not say it: SDKs tell a spent quota from a rate limit. */
const OPENAI_CODE_TYPES: Partial<Record<ErrorCode, string>> = {
  QUOTA_EXCEEDED: 'insufficient_quota',
};

/** The `code` a /v1 answer carries for one of our errors. */
export const openAiCode = (code: ErrorCode): string => OPENAI_CODES[code] ?? code.toLowerCase();

/** `{error: {message, type, param, code}}` as OpenAI's API and SDKs expect. */
export function openAiErrorBody(error: AppError): object {
  const type =
    OPENAI_CODE_TYPES[error.code] ??
    OPENAI_TYPES[error.httpStatus] ??
    (error.httpStatus >= 500 ? 'server_error' : 'invalid_request_error');
  return {
    error: {
      message: error.message,
      type,
      param: firstIssuePath(error.details),
      code: openAiCode(error.code),
    },
  };
}

/** OpenAI names the body field itself (`messages`, not `body.messages`). */
function firstIssuePath(details: unknown): string | null {
  const issues = (details as { issues?: { path?: string }[] } | undefined)?.issues;
  const path = issues?.[0]?.path;
  return path === undefined ? null : path.replace(/^body\./, '');
}

const BODY_ERRORS: Record<string, ErrorCode> = {
  'entity.parse.failed': 'MALFORMED_JSON',
  'entity.too.large': 'PAYLOAD_TOO_LARGE',
  'charset.unsupported': 'UNSUPPORTED_MEDIA_TYPE',
  'encoding.unsupported': 'UNSUPPORTED_MEDIA_TYPE',
};

const BODY_MESSAGES: Partial<Record<ErrorCode, string>> = {
  MALFORMED_JSON: 'request body is not valid JSON',
  PAYLOAD_TOO_LARGE: 'request body is too large',
  UNSUPPORTED_MEDIA_TYPE: 'request body charset or content encoding is not supported',
};

export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = err as { type?: string; status?: number; message?: string } | undefined;
  const bodyCode = e?.type === undefined ? undefined : BODY_ERRORS[e.type];
  if (bodyCode) return new AppError(bodyCode, BODY_MESSAGES[bodyCode] ?? bodyCode);
  // Other client faults raised by express or body-parser (aborted upload, undecodable URL...).
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) {
    return new AppError('BAD_REQUEST', 'the request could not be read');
  }
  return internalError();
}

declare module 'node:http' {
  interface IncomingMessage {
    /** Request id: the client's x-request-id when well formed, otherwise a new UUID. */
    id: string;
    /**
     * When a fast lane in front of Express (see `listen`) read this request first and handed it on:
     * the time it arrived, so the access log and metrics still count from then.
     */
    receivedAt?: number;
  }
}

/** Where `trackRequest` writes: the access log and the request-duration histogram. */
export interface RequestTracker {
  readonly logger: Logger;
  observe(method: string, route: string, status: number, seconds: number): void;
}

/** The tracker of an app made by createHttpApp, for fast lanes that answer before it. */
export const appTracker = (app: Express): RequestTracker => app.get('tracker') as RequestTracker;

function requestTracker(logger: Logger, metrics: Registry): RequestTracker {
  const histogram = httpDurationHistogram(metrics);
  // One labelled child per method, route and status, looked up by a plain string instead of
  // prom-client hashing a label object on every request.
  const series = new Map<string, ReturnType<typeof histogram.labels>>();
  return {
    // Access-log lines are built from a fixed set of fields, never headers or bodies, so they skip
    // the logger's redaction (a third of the cost of each line).
    logger: logger.child({}, { redact: [] }),
    observe(method, route, status, seconds) {
      const key = `${method} ${status} ${route}`;
      let child = series.get(key);
      if (!child) {
        child = histogram.labels({ method, route, status: String(status) });
        series.set(key, child);
      }
      child.observe(seconds);
    },
  };
}

/**
 * Gives a request its id (the client's x-request-id when well formed, else a UUID), echoes it, and
 * writes one access-log line and one duration sample when the answer is done or the client goes
 * away. The log line has method, URL, client address, status and time, and never headers (they may
 * carry API keys). Used by Express (`requestContext`) and by fast lanes that answer without it.
 */
export function trackRequest(
  tracker: RequestTracker,
  req: IncomingMessage,
  res: ServerResponse,
  route: () => string,
  started = req.receivedAt ?? performance.now(),
): string {
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
      correlation_id: req.headers['x-correlation-id'],
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
  res.once('close', () => done(!res.writableFinished));
  return id;
}

/**
 * Per request, in one middleware: `trackRequest`, labelled with the matched route. Written here
 * rather than with pino-http: its per-request child logger and serialisers were a fifth of the
 * gateway's CPU time in bench:translate (docs/benchmarks.md).
 */
function requestContext(tracker: RequestTracker): RequestHandler {
  return (req, res, next) => {
    // Only route templates or a fixed label: a label from the raw path lets anyone add series forever.
    trackRequest(tracker, req, res, () =>
      String(req.route?.path ?? (res.locals.routeLabel as string | undefined) ?? UNMATCHED_ROUTE),
    );
    next();
  };
}

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
  const handler: RequestListener = lane
    ? (req, res) => {
        if (!lane(req, res)) app(req, res);
      }
    : app;
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

/** The request's id (from x-request-id or generated), as echoed in the response. */
export const requestId = (req: Request): string => String(req.id);

const childLoggers = new WeakMap<Request, Logger>();
const laterBindings = new WeakMap<Request, Record<string, unknown>>();

/**
 * The request's logger, bound to its request and correlation ids and to what `bindRequestLog` added;
 * made on first use (most requests never need one: a pino child costs a serialisation of its
 * bindings), from the logger createHttpApp was given.
 */
export function requestLog(req: Request): Logger {
  let child = childLoggers.get(req);
  if (!child) {
    const root = req.app.get('logger') as Logger;
    child = root.child({
      req_id: req.id,
      correlation_id: req.headers['x-correlation-id'],
      ...laterBindings.get(req),
    });
    childLoggers.set(req, child);
  }
  return child;
}

/** Adds fields to every line of the request's logger, without making one if none was needed yet. */
export function bindRequestLog(req: Request, bindings: Record<string, unknown>): void {
  const child = childLoggers.get(req);
  if (child) child.setBindings(bindings);
  else laterBindings.set(req, { ...laterBindings.get(req), ...bindings });
}
