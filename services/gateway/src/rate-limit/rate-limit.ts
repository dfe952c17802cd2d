import type { IncomingMessage, ServerResponse } from 'node:http';

import type { RedisClient } from '@tp/redis';
import { AppError } from '@tp/runtime';
import type { Request, RequestHandler } from 'express';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  RLWrapperTimeouts,
} from 'rate-limiter-flexible';

import { looksLikeApiKey, parseBearer } from '../auth/api-key.js';
import { clientKey } from './client-address.js';
import { LocalCounts } from './local-counts.js';

/** Longest wait for Redis before a request is counted in this process's memory instead. */
const REDIS_TIMEOUT_MS = 250;

export interface RateLimitOptions {
  readonly redis: RedisClient | undefined;
  readonly keyPrefix: string;
  /** Requests per window per client address on public routes; 0 = unlimited. */
  readonly publicPoints: number;
  /** Requests per window per API key; 0 = unlimited. */
  readonly perKeyPoints: number;
  readonly windowSeconds: number;
  /** Failed authentications per client address and minute before 429 without a lookup; 0 = off. */
  readonly authFailuresPerMinute: number;
}

/** Failed authentications per client address, checked before a key costs a Postgres query. */
export interface AuthFailures {
  /** The 429 to answer when this address failed too often this minute, without looking the key up. */
  refuse(req: IncomingMessage, res: ServerResponse): AppError | undefined;
  /**
   * Counts one failed authentication of the request's client address; resolves once counted, so the
   * client's next attempt finds it (never rejects).
   */
  record(req: IncomingMessage): Promise<void>;
}

declare module 'node:http' {
  interface IncomingMessage {
    /** Set once the guard counted the request against the per-address limit: a public route does not again. */
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
}

/**
 * Limits per client address (public routes) and per API key (keyed routes), shared by every gateway
 * replica through Redis (rate-limiter-flexible's atomic increment-and-expire, a fixed window per key
 * from its first request), counted in each replica's memory and sent in batches (LocalCounts). A key
 * over its limit is refused from memory until its window ends. When Redis is down or slow each replica
 * counts in its own memory, so the limits still hold per process and no request fails because of Redis.
 */
export function createRateLimits(options: RateLimitOptions): RateLimits {
  const limiter = (scope: string, points: number, seconds: number) =>
    points === 0 ? undefined : sharedLimiter(options, `${options.keyPrefix}rl:${scope}`, points, seconds);
  const address = limiter('ip', options.publicPoints, options.windowSeconds);
  const key = limiter('key', options.perKeyPoints, options.windowSeconds);
  const byAddress = middleware(address, (req) => clientKey(req.ip), true);
  return {
    byAddress,
    byKey: middleware(key, (_req, res) => String(res.locals.principal?.keyId), false),
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
    authFailures: authFailuresOf(limiter('authfail', options.authFailuresPerMinute, 60)),
  };
}

/**
 * Counted in this process's memory and, in batches, in Redis (LocalCounts); in memory alone while
 * Redis is down or slower than REDIS_TIMEOUT_MS (the insurance limiter).
 */
function sharedLimiter(
  options: RateLimitOptions,
  keyPrefix: string,
  points: number,
  duration: number,
): LocalCounts {
  const memory = new RateLimiterMemory({ points, duration, keyPrefix });
  if (!options.redis) return new LocalCounts(memory, points);
  const store = new RateLimiterRedis({
    storeClient: options.redis,
    useRedisPackage: true,
    rejectIfRedisNotReady: true,
    points,
    duration,
    keyPrefix,
  });
  return new LocalCounts(
    new RLWrapperTimeouts({ limiter: store, insuranceLimiter: memory, timeoutMs: REDIS_TIMEOUT_MS }),
    points,
  );
}

/**
 * Failed authentications per client address (`counts` undefined: not limited). An address whose
 * failures reached the limit (counted across replicas) is refused from memory until its window ends,
 * so the check before each lookup needs no Redis call.
 */
function authFailuresOf(counts: LocalCounts | undefined): AuthFailures {
  return {
    refuse(req, res) {
      const refusal = counts?.refused(clientKey((req as Request).ip));
      return counts && refusal && applied(res, counts.points, refusal);
    },
    async record(req) {
      await Promise.resolve(counts?.consume(clientKey((req as Request).ip))).catch(() => undefined);
    },
  };
}

/** A limit as middleware; a per-address one counts a request once (`rateLimitCounted`). */
function middleware(
  counts: LocalCounts | undefined,
  keyOf: (req: Request, res: ServerResponse & { locals: Record<string, { keyId?: string }> }) => string,
  perAddress: boolean,
): RequestHandler {
  if (!counts) return (_req, _res, next) => next();
  return (req, res, next) => {
    if (perAddress && req.rateLimitCounted) {
      next();
      return;
    }
    if (perAddress) req.rateLimitCounted = true;
    const decision = counts.consume(keyOf(req, res as never));
    if (decision instanceof RateLimiterRes) next(applied(res, counts.points, decision));
    else
      decision.then(
        (decided) => next(applied(res, counts.points, decided)),
        // The limiter failing lets the request go on unlimited.
        () => next(),
      );
  };
}

/** Sets the RateLimit-* headers; returns the 429 when the request is over the limit. */
function applied(res: ServerResponse, points: number, decision: RateLimiterRes): AppError | undefined {
  const allowed = decision.consumedPoints <= points;
  const reset = String(Math.max(1, Math.ceil(decision.msBeforeNext / 1000)));
  res.setHeader('RateLimit-Limit', String(points));
  res.setHeader('RateLimit-Remaining', String(allowed ? decision.remainingPoints : 0));
  res.setHeader('RateLimit-Reset', reset);
  if (allowed) return undefined;
  return new AppError(
    'RATE_LIMITED',
    `rate limit of ${points} requests exceeded; retry in ${reset} s`,
    undefined,
    {
      'Retry-After': reset,
    },
  );
}
