import type { BudgetPeriod, Orm } from '@tp/db';

/** An admin's limits on one key; null = no limit. Tokens are chat tokens (the provider's total_tokens). */
export interface KeyLimits {
  readonly requestsPerDay: number | null;
  readonly tokensPerDay: number | null;
  readonly tokensPerMonth: number | null;
  /** Characters the engines translate per UTC calendar month (hot-cache hits are free). */
  readonly charactersPerMonth: number | null;
}

export const NO_LIMITS: KeyLimits = {
  requestsPerDay: null,
  tokensPerDay: null,
  tokensPerMonth: null,
  charactersPerMonth: null,
};

/** Tokens set aside for one chat completion, to be replaced by what it used once it is over. */
export interface TokenReservation {
  readonly keyId: string;
  readonly day: string;
  readonly month: string;
  readonly tokens: number;
}

export type Reserve =
  | { readonly kind: 'reserved'; readonly reservation: TokenReservation }
  | { readonly kind: 'spent'; readonly period: BudgetPeriod };

/** What a key spent in the current UTC day and month. */
export interface Spent {
  readonly requestsToday: number;
  readonly tokensToday: number;
  readonly tokensThisMonth: number;
}

/** Characters translated by the engines (with reservations in flight), and answered from the cache. */
export interface CharactersSpent {
  readonly charactersToday: number;
  readonly cachedCharactersToday: number;
  readonly charactersThisMonth: number;
  readonly cachedCharactersThisMonth: number;
}

export const NOTHING_SPENT: CharactersSpent = {
  charactersToday: 0,
  cachedCharactersToday: 0,
  charactersThisMonth: 0,
  cachedCharactersThisMonth: 0,
};

/** Characters of translation work: by the engines (`translated`), and from the hot cache (`cached`). */
export interface CharacterCounts {
  readonly translated: number;
  readonly cached: number;
}

/** The day and month rows (their first days) a count went to, for a later correction. */
export interface CharacterPeriods {
  readonly day: string;
  readonly month: string;
}

// The periods follow the database's clock, so every gateway process agrees on when a day ends.
const TODAY = `(now() at time zone 'utc')::date`;
const THIS_MONTH = `date_trunc('month', now() at time zone 'utc')::date`;

/**
 * Budgets are spent with conditional upserts on key_budget_usage: Postgres locks the counter row, so
 * of N parallel requests on a budget of 5, exactly 5 find it below the limit. Redis is not used: the
 * key lookup already needs Postgres, and a Redis counter would need Postgres anyway to survive a flush.
 */
export class BudgetStore {
  constructor(private readonly orm: Orm) {}

  /** Counts one request of today against `limit`; false (and nothing counted) when it is spent. */
  async spendRequest(keyId: string, limit: number): Promise<boolean> {
    if (limit <= 0) return false;
    const rows = await this.orm.em.getConnection().execute<{ requests: number }[]>(
      `insert into key_budget_usage as u (api_key_id, period, starts_on, requests)
         values (?, 'day', ${TODAY}, 1)
       on conflict (api_key_id, period, starts_on) do update set requests = u.requests + 1
         where u.requests < ?
       returning u.requests`,
      [keyId, limit],
    );
    return rows.length === 1;
  }

  /**
   * Admits a chat completion when the tokens of the day and of the month (used, plus reserved by
   * completions in flight) are below their limits, and reserves `estimate` tokens in both, in one
   * transaction: both reserved, or neither.
   */
  async reserveTokens(keyId: string, limits: KeyLimits, estimate: number): Promise<Reserve> {
    if (limits.tokensPerDay !== null && limits.tokensPerDay <= 0) return { kind: 'spent', period: 'day' };
    if (limits.tokensPerMonth !== null && limits.tokensPerMonth <= 0) {
      return { kind: 'spent', period: 'month' };
    }
    return this.orm.em
      .fork()
      .transactional(async (em) => {
        const rows = await em.execute<{ period: BudgetPeriod; starts_on: string }[]>(
          `insert into key_budget_usage as u (api_key_id, period, starts_on, tokens)
           values (?, 'day', ${TODAY}, ?), (?, 'month', ${THIS_MONTH}, ?)
         on conflict (api_key_id, period, starts_on) do update set tokens = u.tokens + excluded.tokens
           where (u.period = 'day' and (?::bigint is null or u.tokens < ?::bigint))
              or (u.period = 'month' and (?::bigint is null or u.tokens < ?::bigint))
         returning u.period, u.starts_on::text as starts_on`,
          [
            keyId,
            estimate,
            keyId,
            estimate,
            limits.tokensPerDay,
            limits.tokensPerDay,
            limits.tokensPerMonth,
            limits.tokensPerMonth,
          ],
        );
        const day = rows.find((row) => row.period === 'day')?.starts_on;
        const month = rows.find((row) => row.period === 'month')?.starts_on;
        if (day === undefined || month === undefined) {
          // Rolls back the reservation that did go through.
          throw new BudgetSpent(day === undefined ? 'day' : 'month');
        }
        return { kind: 'reserved', reservation: { keyId, day, month, tokens: estimate } } as const;
      })
      .catch((err: unknown) => {
        if (err instanceof BudgetSpent) return { kind: 'spent', period: err.period } as const;
        throw err;
      });
  }

  /** Replaces a reservation by the tokens the completion used (0 when it failed or reported none). */
  async settleTokens(reservation: TokenReservation, used: number): Promise<void> {
    await this.orm.em.getConnection().execute(
      `update key_budget_usage set tokens = greatest(tokens + ?, 0)
         where api_key_id = ? and ((period = 'day' and starts_on = ?) or (period = 'month' and starts_on = ?))`,
      [used - reservation.tokens, reservation.keyId, reservation.day, reservation.month],
      'run',
    );
  }

  /**
   * Counts characters of one translation request in the day's and the month's rows, in one statement:
   * `translated` (engine work, or a reservation for it) against `limit` per month, `cached` apart.
   * Undefined (nothing counted) when the month's characters plus `translated` would pass the limit.
   */
  async countCharacters(
    keyId: string,
    counts: CharacterCounts,
    limit: number | null,
  ): Promise<CharacterPeriods | undefined> {
    if (limit !== null && counts.translated > limit) return undefined;
    const rows = await this.orm.em.getConnection().execute<{ day: string | null; month: string | null }[]>(
      `with month as (
         insert into key_budget_usage as u (api_key_id, period, starts_on, characters, cached_characters)
           values (?, 'month', ${THIS_MONTH}, ?, ?)
         on conflict (api_key_id, period, starts_on) do update
           set characters = u.characters + excluded.characters,
               cached_characters = u.cached_characters + excluded.cached_characters
           where excluded.characters = 0 or ?::bigint is null or u.characters + excluded.characters <= ?::bigint
         returning u.starts_on
       ), day as (
         insert into key_budget_usage as u (api_key_id, period, starts_on, characters, cached_characters)
           select ?, 'day', ${TODAY}, ?, ? from month
         on conflict (api_key_id, period, starts_on) do update
           set characters = u.characters + excluded.characters,
               cached_characters = u.cached_characters + excluded.cached_characters
         returning u.starts_on
       )
       select (select starts_on::text from day) as day, (select starts_on::text from month) as month`,
      [keyId, counts.translated, counts.cached, limit, limit, keyId, counts.translated, counts.cached],
    );
    const { day, month } = rows[0] ?? {};
    return day && month ? { day, month } : undefined;
  }

  /** Corrects characters counted by countCharacters in the periods it returned (never below 0). */
  async correctCharacters(keyId: string, periods: CharacterPeriods, change: CharacterCounts): Promise<void> {
    await this.orm.em.getConnection().execute(
      `update key_budget_usage set characters = greatest(characters + ?, 0),
         cached_characters = greatest(cached_characters + ?, 0)
       where api_key_id = ? and ((period = 'day' and starts_on = ?) or (period = 'month' and starts_on = ?))`,
      [change.translated, change.cached, keyId, periods.day, periods.month],
      'run',
    );
  }

  /** Characters of every key that translated this UTC month, for the admin list of keys. */
  async charactersByKey(): Promise<Map<string, CharactersSpent>> {
    const rows = await this.orm.em
      .getConnection()
      .execute<{ api_key_id: string; period: BudgetPeriod; characters: string; cached_characters: string }[]>(
        `select api_key_id, period, characters, cached_characters from key_budget_usage
       where (period = 'day' and starts_on = ${TODAY}) or (period = 'month' and starts_on = ${THIS_MONTH})`,
      );
    const byKey = new Map<string, CharactersSpent>();
    for (const row of rows) {
      const spent = byKey.get(row.api_key_id) ?? NOTHING_SPENT;
      const [characters, cached] = [Number(row.characters), Number(row.cached_characters)];
      byKey.set(
        row.api_key_id,
        row.period === 'day'
          ? { ...spent, charactersToday: characters, cachedCharactersToday: cached }
          : { ...spent, charactersThisMonth: characters, cachedCharactersThisMonth: cached },
      );
    }
    return byKey;
  }

  async spent(keyId: string): Promise<Spent & CharactersSpent> {
    const rows = await this.orm.em.getConnection().execute<
      {
        period: BudgetPeriod;
        requests: number;
        tokens: string;
        characters: string;
        cached_characters: string;
      }[]
    >(
      `select period, requests, tokens, characters, cached_characters from key_budget_usage
         where api_key_id = ? and ((period = 'day' and starts_on = ${TODAY})
           or (period = 'month' and starts_on = ${THIS_MONTH}))`,
      [keyId],
    );
    const day = rows.find((row) => row.period === 'day');
    const month = rows.find((row) => row.period === 'month');
    return {
      requestsToday: day?.requests ?? 0,
      tokensToday: Number(day?.tokens ?? 0),
      tokensThisMonth: Number(month?.tokens ?? 0),
      charactersToday: Number(day?.characters ?? 0),
      cachedCharactersToday: Number(day?.cached_characters ?? 0),
      charactersThisMonth: Number(month?.characters ?? 0),
      cachedCharactersThisMonth: Number(month?.cached_characters ?? 0),
    };
  }
}

/** Thrown inside the reservation's transaction to roll it back. */
class BudgetSpent extends Error {
  constructor(readonly period: BudgetPeriod) {
    super(`tokens per ${period} spent`);
  }
}

/** When the current period ends (UTC), for `Retry-After` and for /me. */
export function periodEnd(period: BudgetPeriod, now = new Date()): Date {
  return period === 'day'
    ? new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1))
    : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}
