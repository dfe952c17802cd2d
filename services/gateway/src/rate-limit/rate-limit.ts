import type { RedisClient } from '@tp/redis';
import { AppError } from '@tp/runtime';
import type { RequestHandler, Response } from 'express';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  RLWrapperTimeouts,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';

/** Longest wait for Redis before the in-memory limiter decides. */
const REDIS_TIMEOUT_MS = 250;

export interface RateLimitOptions {
  readonly redis: RedisClient;
  readonly keyPrefix: string;
  /** Requests per window per client address on public routes; 0 = unlimited. */
  readonly publicPoints: number;
  /** Requests per window per API key; 0 = unlimited. */
  readonly perKeyPoints: number;
  readonly windowSeconds: number;
}

export interface RateLimits {
  /** For public routes: counts by client address. */
  readonly byAddress: RequestHandler;
  /** For keyed routes, after authentication: counts by API key id. */
  readonly byKey: RequestHandler;
}

/**
 * Fixed-window counters in Redis, shared by every gateway replica. When Redis is down each replica
 * falls back to the same limits in its own memory (rate-limiter-flexible's insurance limiter): the
 * limit then holds per replica instead of globally, and no request fails because of Redis.
 */
export function createRateLimits(options: RateLimitOptions): RateLimits {
  const byAddress = limiter(options, 'ip', options.publicPoints);
  const byKey = limiter(options, 'key', options.perKeyPoints);
  return {
    byAddress: middleware(byAddress, options.publicPoints, (_res, req) => req.ip ?? 'unknown'),
    byKey: middleware(byKey, options.perKeyPoints, (res) => String(res.locals.principal?.keyId)),
  };
}

function limiter(
  options: RateLimitOptions,
  scope: string,
  points: number,
): RateLimiterAbstract | RLWrapperTimeouts | undefined {
  if (points === 0) return undefined;
  const common = { points, duration: options.windowSeconds, keyPrefix: `${options.keyPrefix}rl:${scope}` };
  const insuranceLimiter = new RateLimiterMemory(common);
  const redis = new RateLimiterRedis({
    ...common,
    storeClient: options.redis,
    useRedisPackage: true,
    rejectIfRedisNotReady: true,
    insuranceLimiter,
  });
  // A Redis that accepts but does not answer must not hold requests: after the timeout the
  // in-memory limiter decides.
  return new RLWrapperTimeouts({ limiter: redis, timeoutMs: REDIS_TIMEOUT_MS, insuranceLimiter });
}

function middleware(
  limiter: RateLimiterAbstract | RLWrapperTimeouts | undefined,
  points: number,
  keyOf: (res: Response, req: Parameters<RequestHandler>[0]) => string,
): RequestHandler {
  if (!limiter) return (_req, _res, next) => next();
  return (req, res, next) => {
    limiter.consume(keyOf(res, req)).then(
      (result) => {
        setLimitHeaders(res, points, result);
        next();
      },
      (rejection: unknown) => {
        if (!(rejection instanceof RateLimiterRes)) {
          next(rejection);
          return;
        }
        setLimitHeaders(res, points, rejection);
        const retryAfter = String(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
        next(
          new AppError(
            'RATE_LIMITED',
            `rate limit of ${points} requests exceeded; retry in ${retryAfter} s`,
            undefined,
            {
              'Retry-After': retryAfter,
            },
          ),
        );
      },
    );
  };
}

function setLimitHeaders(res: Response, points: number, result: RateLimiterRes): void {
  res.setHeader('RateLimit-Limit', String(points));
  res.setHeader('RateLimit-Remaining', String(result.remainingPoints));
  res.setHeader('RateLimit-Reset', String(Math.ceil(result.msBeforeNext / 1000)));
}
