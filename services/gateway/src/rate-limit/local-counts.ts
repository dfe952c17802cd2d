import { LRUCache } from 'lru-cache';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

/** Share of a limit a process may count ahead of Redis (at least one point): the tolerance across replicas. */
export const AHEAD_SHARE = 0.01;
/** A count last confirmed by Redis longer ago than this is asked again before the next request. */
const STALE_MS = 1_000;
/** Most keys (client addresses, API keys) counted at once; the least recently used go first. */
const MAX_KEYS = 10_000;

/** A key's count in this process: Redis's total at its last answer plus what was counted here since. */
interface Count {
  consumed: number;
  /** Counted here, not yet confirmed by Redis (sent or to send). */
  ahead: number;
  unsent: number;
  resetAt: number;
  confirmedAt: number;
  /** The increment on its way to Redis; at most one per key at a time. */
  sending: Promise<void> | undefined;
}

/**
 * A shared limiter (`store`, Redis) counted in this process's memory: a request of a key seen in the
 * last second is decided at once from its count, and the counts go to `store` one batch per key and
 * Redis round trip (one `consume(key, n)`), whose answer brings the other replicas' counts. A process
 * counts at most `AHEAD_SHARE` of the limit ahead of Redis; beyond, requests wait for its answer. So
 * one process never admits more than the limit, and R replicas together at most
 * 2 x AHEAD_SHARE x (R - 1) of it more (docs/decisions.md, "Rate limits").
 */
export class LocalCounts {
  private readonly counts = new LRUCache<string, Count>({ max: MAX_KEYS });
  private readonly maxAhead: number;

  constructor(
    private readonly store: RateLimiterAbstract,
    readonly points: number,
  ) {
    this.maxAhead = Math.max(1, Math.floor(points * AHEAD_SHARE));
  }

  /** The refusal of `key` for the rest of its window when it used up the limit, without counting. */
  refused(key: string): RateLimiterRes | undefined {
    const now = Date.now();
    const count = this.counts.get(key);
    return count && now < count.resetAt && count.consumed >= this.points ? refusal(count, now) : undefined;
  }

  /** The decision for one more request of `key`: allowed while `consumedPoints` <= points. */
  consume(key: string): RateLimiterRes | Promise<RateLimiterRes> {
    const now = Date.now();
    const count = this.counts.get(key);
    if (!count || now >= count.resetAt) return this.ask(key, now);
    // Counts only grow within a window: a key that used up the limit stays refused until it ends.
    if (count.consumed >= this.points) return refusal(count, now);
    if (now - count.confirmedAt > STALE_MS) return this.ask(key, now);
    if (count.ahead >= this.maxAhead && count.sending) return count.sending.then(() => this.consume(key));
    count.consumed += 1;
    count.ahead += 1;
    count.unsent += 1;
    this.send(key, count);
    return new RateLimiterRes(this.points - count.consumed, count.resetAt - now, count.consumed);
  }

  /** Counts one request in `store` and waits for its answer (a key new or stale here). */
  private ask(key: string, now: number): Promise<RateLimiterRes> {
    const known = (decision: RateLimiterRes) => {
      const count = this.counts.get(key);
      if (count && count.resetAt > now) count.consumed = Math.max(count.consumed, decision.consumedPoints);
      else this.counts.set(key, fresh(decision));
      if (count) count.confirmedAt = Date.now();
      return decision;
    };
    return this.store.consume(key, 1).then(known, (refusal: unknown) => {
      if (refusal instanceof RateLimiterRes) return known(refusal);
      throw refusal;
    });
  }

  /** Sends what was counted since the last send, unless a send is on its way (its answer sends the rest). */
  private send(key: string, count: Count): void {
    if (count.sending || count.unsent === 0) return;
    const sent = count.unsent;
    count.unsent = 0;
    const answered = (decision: unknown) => {
      count.ahead -= sent;
      count.sending = undefined;
      if (decision instanceof RateLimiterRes) {
        count.consumed = decision.consumedPoints + count.ahead;
        count.resetAt = Date.now() + decision.msBeforeNext;
        count.confirmedAt = Date.now();
      }
      this.send(key, count);
    };
    count.sending = this.store.consume(key, sent).then(answered, answered);
  }
}

/** A refusal, with the points the request would have made (over the limit). */
const refusal = (count: Count, now: number) => new RateLimiterRes(0, count.resetAt - now, count.consumed + 1);

const fresh = (decision: RateLimiterRes): Count => ({
  consumed: decision.consumedPoints,
  ahead: 0,
  unsent: 0,
  resetAt: Date.now() + decision.msBeforeNext,
  confirmedAt: Date.now(),
  sending: undefined,
});
