import type { IncomingMessage, ServerResponse } from 'node:http';

import type { RedisClient } from '@tp/redis';
import { AppError } from '@tp/runtime';
import type { Request, RequestHandler, Response } from 'express';

import { looksLikeApiKey, parseBearer } from '../auth/api-key.js';
import { clientKey } from './client-address.js';
import { WindowLimiter, type Decision } from './window-limiter.js';

/** Longest wait for Redis when counts are sent. */
const REDIS_TIMEOUT_MS = 250;

export interface RateLimitOptions {
  readonly redis: RedisClient | undefined;
  readonly keyPrefix: string;
  /** Requests per window per client address on public routes; 0 = unlimited. */
  readonly publicPoints: number;
  /** Requests per window per API key; 0 = unlimited. */
  readonly perKeyPoints: number;
  readonly windowSeconds: number;
  /** How often each process sends its counts to Redis and learns the others'. */
  readonly syncMs: number;
  /** Most clients (or keys) each limiter counts at once in one window; least recently seen go first. */
  readonly maxClients: number;
  /** Failed authentications per client address and minute before 429 without a lookup; 0 = off. */
  readonly authFailuresPerMinute: number;
}

/** Failed authentications per client address, checked before a key costs a Postgres query. */
export interface AuthFailures {
  /** The 429 to answer when this address failed too often this minute, without looking the key up. */
  refuse(req: IncomingMessage, res: ServerResponse): AppError | undefined;
  /** Counts one failed authentication of the request's client address. */
  record(req: IncomingMessage): void;
}

/** A counted request: the RateLimit-* headers (name, value, ...) and the 429 when it is over the limit. */
interface Counted {
  readonly lines: readonly string[];
  readonly refused: AppError | undefined;
}

declare module 'node:http' {
  interface IncomingMessage {
    /** Set once a request has been counted against the per-address limit (by the guard), so a public route does not count it again. */
    rateLimitCounted?: boolean;
  }
}

export interface RateLimits {
  /** For public routes: counts by client address. */
  readonly byAddress: RequestHandler;
  /** For keyed routes, after authentication: counts by API key id. */
  readonly byKey: RequestHandler;
  /**
   * Before every route but /health: counts by client address each request that does not carry a
   * well-formed API key (/ready, /docs, the OpenAPI document, unknown paths, public routes). A request
   * with a key is counted per key once authenticated, or as a failed authentication.
   */
  readonly guard: RequestHandler;
  readonly authFailures: AuthFailures;
  /** Sends pending counts and stops the sync timers. */
  stop(): Promise<void>;
}

/**
 * Fixed-window limits per client address (public routes) and per API key (keyed routes), shared by
 * every gateway replica through Redis without a Redis call per request (see WindowLimiter). When
 * Redis is down each replica still applies the limits on its own, and no request fails because of it.
 */
export function createRateLimits(options: RateLimitOptions): RateLimits {
  const limiter = (scope: string, points: number) =>
    points === 0
      ? undefined
      : new WindowLimiter(options.redis, {
          points,
          windowSeconds: options.windowSeconds,
          keyPrefix: `${options.keyPrefix}rl:${scope}:`,
          syncMs: options.syncMs,
          timeoutMs: REDIS_TIMEOUT_MS,
          maxKeys: options.maxClients,
        });
  const address = limiter('ip', options.publicPoints);
  const key = limiter('key', options.perKeyPoints);
  const failures =
    options.authFailuresPerMinute === 0
      ? undefined
      : new WindowLimiter(options.redis, {
          points: options.authFailuresPerMinute,
          windowSeconds: 60,
          keyPrefix: `${options.keyPrefix}rl:authfail:`,
          syncMs: options.syncMs,
          timeoutMs: REDIS_TIMEOUT_MS,
          maxKeys: options.maxClients,
        });
  const byAddress = middleware(address, options.publicPoints, (req) => clientKey(req.ip), true);
  return {
    byAddress,
    byKey: middleware(key, options.perKeyPoints, (_req, res) => String(res.locals.principal?.keyId), false),
    guard: (req, res, next) => {
      const bearer = parseBearer(req.headers.authorization);
      if (
        req.path === '/health' ||
        req.path === '/metrics' ||
        (bearer.kind === 'token' && looksLikeApiKey(bearer.token))
      )
        next();
      else byAddress(req, res, next);
    },
    authFailures: authFailuresOf(failures, options.authFailuresPerMinute),
    async stop() {
      await Promise.all([address?.stop(), key?.stop(), failures?.stop()]);
    },
  };
}

/** Failed authentications per client address (`failures` undefined: not limited). */
function authFailuresOf(failures: WindowLimiter | undefined, points: number): AuthFailures {
  return {
    refuse(req, res) {
      const client = clientKey((req as Request).ip);
      if (!failures?.reached(client)) return undefined;
      return decide({ allowed: false, remaining: 0, resetMs: 60_000 }, points, res);
    },
    record(req) {
      failures?.consume(clientKey((req as Request).ip));
    },
  };
}

/** A limit as middleware; a per-address one counts a request once (`rateLimitCounted`). */
function middleware(
  limiter: WindowLimiter | undefined,
  points: number,
  keyOf: (req: Request, res: Response) => string,
  perAddress: boolean,
): RequestHandler {
  if (!limiter) return (_req, _res, next) => next();
  return (req, res, next) => {
    if (perAddress && req.rateLimitCounted) {
      next();
      return;
    }
    if (perAddress) req.rateLimitCounted = true;
    next(decide(limiter.consume(keyOf(req, res)), points, res));
  };
}

/** Sets the RateLimit-* headers; returns the 429 when the request is over the limit. */
const decide = (decision: Decision, points: number, res: ServerResponse): AppError | undefined =>
  applied(res, counted(decision, points));

/** Sets a count's headers on the response; returns its 429, if any. */
function applied(res: ServerResponse, count: Counted | undefined): AppError | undefined {
  setLimitHeaders(res, count?.lines);
  return count?.refused;
}

/** The RateLimit-* header lines of a decision, and the 429 when the request is over the limit. */
function counted(decision: Decision, points: number): Counted {
  const resetSeconds = Math.max(1, Math.ceil(decision.resetMs / 1000));
  const reset = String(resetSeconds);
  const lines = [
    'RateLimit-Limit',
    String(points),
    'RateLimit-Remaining',
    String(decision.remaining),
    'RateLimit-Reset',
    reset,
  ];
  if (decision.allowed) return { lines, refused: undefined };
  const refused = new AppError(
    'RATE_LIMITED',
    `rate limit of ${points} requests exceeded; retry in ${resetSeconds} s`,
    undefined,
    { 'Retry-After': reset },
  );
  return { lines, refused };
}

/** Sets header lines (name, value, ...) on a response, in their order. */
function setLimitHeaders(res: ServerResponse, lines: readonly string[] | undefined): void {
  if (!lines) return;
  for (let i = 0; i + 1 < lines.length; i += 2) res.setHeader(lines[i] as string, lines[i + 1] as string);
}
