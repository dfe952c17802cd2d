import type { IncomingMessage, ServerResponse } from 'node:http';

import type { RedisClient } from '@tp/redis';
import { AppError } from '@tp/runtime';
import type { Request, RequestHandler } from 'express';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  RLWrapperTimeouts,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { LRUCache } from 'lru-cache';

import { looksLikeApiKey, parseBearer } from '../auth/api-key.js';
import { clientKey } from './client-address.js';

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
 * replica through Redis (rate-limiter-flexible: one atomic INCR-and-expire per request, a fixed
 * window per key from its first request). A key over its limit is refused from memory until its
 * window ends. When Redis is down or slow each replica counts in its own memory, so the limits still
 * hold per process and no request fails because of Redis.
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

/** A limiter and its number of points per window. */
interface Shared {
  readonly points: number;
  readonly limiter: RateLimiterAbstract;
}

/**
 * Counted in Redis, and in this process's memory while Redis is down or slower than REDIS_TIMEOUT_MS
 * (the insurance limiter). A key that reached `points` is refused from memory until its window ends.
 */
function sharedLimiter(
  options: RateLimitOptions,
  keyPrefix: string,
  points: number,
  duration: number,
): Shared {
  const memory = new RateLimiterMemory({ points, duration, keyPrefix });
  if (!options.redis) return { points, limiter: memory };
  const store = new RateLimiterRedis({
    storeClient: options.redis,
    useRedisPackage: true,
    rejectIfRedisNotReady: true,
    points,
    duration,
    keyPrefix,
    inMemoryBlockOnConsumed: points,
  });
  return {
    points,
    limiter: new RLWrapperTimeouts({ limiter: store, insuranceLimiter: memory, timeoutMs: REDIS_TIMEOUT_MS }),
  };
}

/** Most client addresses remembered as blocked for failed authentications. */
const MAX_BLOCKED_ADDRESSES = 10_000;

/**
 * Failed authentications per client address (`shared` undefined: not limited). An address whose
 * failures reached the limit (counted across replicas) is remembered as blocked until its window
 * ends, so the check before each lookup needs no Redis call.
 */
function authFailuresOf(shared: Shared | undefined): AuthFailures {
  const blocked = new LRUCache<string, true>({ max: MAX_BLOCKED_ADDRESSES, ttlAutopurge: false });
  const block = (address: string, decision: RateLimiterRes) => {
    if (decision.consumedPoints >= (shared?.points ?? Infinity)) {
      blocked.set(address, true, { ttl: Math.max(1, decision.msBeforeNext) });
    }
  };
  return {
    refuse(req, res) {
      const ms = shared ? blocked.getRemainingTTL(clientKey((req as Request).ip)) : 0;
      if (!shared || ms <= 0) return undefined;
      return applied(res, shared.points, new RateLimiterRes(0, ms, shared.points), false);
    },
    async record(req) {
      const address = clientKey((req as Request).ip);
      await shared?.limiter.consume(address).then(
        (decision) => block(address, decision),
        (refusal: unknown) => {
          if (refusal instanceof RateLimiterRes) block(address, refusal);
        },
      );
    },
  };
}

/** A limit as middleware; a per-address one counts a request once (`rateLimitCounted`). */
function middleware(
  shared: Shared | undefined,
  keyOf: (req: Request, res: ServerResponse & { locals: Record<string, { keyId?: string }> }) => string,
  perAddress: boolean,
): RequestHandler {
  if (!shared) return (_req, _res, next) => next();
  return (req, res, next) => {
    if (perAddress && req.rateLimitCounted) {
      next();
      return;
    }
    if (perAddress) req.rateLimitCounted = true;
    shared.limiter.consume(keyOf(req, res as never)).then(
      (decision: RateLimiterRes) => next(applied(res, shared.points, decision, true)),
      (refusal: unknown) =>
        // Anything but a refusal is the limiter failing: the request goes on unlimited.
        next(refusal instanceof RateLimiterRes ? applied(res, shared.points, refusal, false) : undefined),
    );
  };
}

/** Sets the RateLimit-* headers; returns the 429 when the request is over the limit. */
function applied(
  res: ServerResponse,
  points: number,
  decision: RateLimiterRes,
  allowed: boolean,
): AppError | undefined {
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
