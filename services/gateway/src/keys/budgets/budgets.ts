import type { BudgetPeriod } from '@tp/db';
import { AppError, requestLog } from '@tp/runtime';
import type { Request, RequestHandler } from 'express';

import type { Principal } from '../../auth/api-key.store.js';
import { periodEnd, type BudgetStore, type TokenReservation } from './budget.store.js';

type Budget = 'requests' | 'tokens' | 'characters';

/**
 * 429 QUOTA_EXCEEDED (OpenAI: insufficient_quota), with the wait until the period ends; `details`
 * adds to the budget's name and reset time, `spent` replaces the start of the message.
 */
export function budgetSpent(
  budget: Budget,
  period: BudgetPeriod,
  now = new Date(),
  extra: { readonly spent?: string; readonly details?: Record<string, unknown> } = {},
): AppError {
  const resets = periodEnd(period, now);
  const seconds = Math.max(1, Math.ceil((resets.getTime() - now.getTime()) / 1000));
  const spent = extra.spent ?? `this API key has used its ${budget} per ${period}`;
  return new AppError(
    'QUOTA_EXCEEDED',
    `${spent}; the budget resets at ${resets.toISOString()}`,
    { budget: `${budget}_per_${period}`, resets_at: resets.toISOString(), ...extra.details },
    { 'Retry-After': String(seconds) },
  );
}

const unavailable = () =>
  new AppError('DEPENDENCY_UNAVAILABLE', 'cannot check the API key budget right now; retry later');

/**
 * Counts every authenticated request of a key that has a requests-per-day limit, and refuses the ones
 * past it. Keys without that limit cost no write. Postgres unreachable -> 503: a budget is never
 * skipped.
 */
export function requestBudget(budgets: BudgetStore): RequestHandler {
  return (req, res, next) => {
    const principal = res.locals.principal;
    const limit = principal?.limits.requestsPerDay ?? null;
    if (!principal || limit === null) {
      next();
      return;
    }
    budgets.spendRequest(principal.keyId, limit).then(
      (spent) => next(spent ? undefined : budgetSpent('requests', 'day')),
      (err: unknown) => {
        requestLog(req).error({ err }, 'request budget check failed');
        next(unavailable());
      },
    );
  };
}

/**
 * Runs a chat completion inside a token reservation: refused with QUOTA_EXCEEDED when the day's or
 * the month's tokens are spent; otherwise `estimate` tokens are held while it runs and replaced by
 * what it reports having used.
 */
export async function withTokenBudget<T>(
  budgets: BudgetStore,
  principal: Principal,
  estimate: number,
  req: Request,
  run: () => Promise<T>,
  usedTokens: (result: T | undefined) => number,
): Promise<T> {
  const reserved = await budgets
    .reserveTokens(principal.keyId, principal.limits, estimate)
    .catch((err: unknown) => {
      requestLog(req).error({ err }, 'token budget check failed');
      throw unavailable();
    });
  if (reserved.kind === 'spent') throw budgetSpent('tokens', reserved.period);
  let result: T | undefined;
  try {
    result = await run();
    return result;
  } finally {
    settle(budgets, reserved.reservation, usedTokens(result), req);
  }
}

/** A failed settlement leaves the reservation counted: the budget errs on the side of the platform. */
function settle(budgets: BudgetStore, reservation: TokenReservation, used: number, req: Request): void {
  budgets
    .settleTokens(reservation, used)
    .catch((err: unknown) => requestLog(req).error({ err, reservation }, 'could not settle chat tokens'));
}

/** A rough lower bound of the prompt's tokens (about 4 characters per token), at least 1. */
export function tokenEstimate(characters: number): number {
  return Math.max(1, Math.ceil(characters / 4));
}
