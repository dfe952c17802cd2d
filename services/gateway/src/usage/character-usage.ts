import { AppError, codePoints, requestLog } from '@tp/runtime';
import type { Request } from 'express';
import { Counter, type Registry } from 'prom-client';

import type { Principal } from '../auth/api-key.store.js';
import type { BudgetStore, CharacterCounts } from '../keys/budgets/budget.store.js';
import { budgetSpent } from '../keys/budgets/budgets.js';
import type { CharacterTally } from './character-tally.js';

export type { CharacterCounts } from '../keys/budgets/budget.store.js';

/** The characters of texts as usage counts them: code points, the unit of every text limit. */
export const charactersOf = (texts: readonly string[]): number =>
  texts.reduce((sum, text) => sum + codePoints(text), 0);

/** What became of one text of a translation request. */
export type TextOutcome = 'translated' | 'cached' | 'failed';

/** The characters of `texts` by what became of each (`outcomes[i]` of `texts[i]`); failed ones cost nothing. */
export function countsOf(texts: readonly string[], outcomes: readonly TextOutcome[]): CharacterCounts {
  let translated = 0;
  let cached = 0;
  texts.forEach((text, index) => {
    if (outcomes[index] === 'translated') translated += codePoints(text);
    else if (outcomes[index] === 'cached') cached += codePoints(text);
  });
  return { translated, cached };
}

/** The characters of a request before the engines: `cached` texts came from the hot cache, `sent` go to the translator. */
export const expectedCounts = (cached: readonly string[], sent: readonly string[]): CharacterCounts => ({
  translated: charactersOf(sent),
  cached: charactersOf(cached),
});

/**
 * The characters of the same request after: each sent text by its translator item (an error, or no
 * item at all when the call failed, costs nothing; an item the translator's cache answered is cached).
 */
export function actualCounts(
  cached: readonly string[],
  sent: readonly string[],
  items: readonly ({ readonly cached: boolean } | { readonly error: unknown })[] | undefined,
): CharacterCounts {
  const outcomes = (items ?? []).map((item): TextOutcome =>
    'error' in item ? 'failed' : item.cached ? 'cached' : 'translated',
  );
  const fromTranslator = countsOf(sent, outcomes);
  return { ...fromTranslator, cached: fromTranslator.cached + charactersOf(cached) };
}

/** One translation request as the route sees it before and after the engines. */
export interface MeteredTranslation<T> {
  /** Characters answered from the gateway's hot cache and those sent to the translator. */
  readonly expected: CharacterCounts;
  /** The engine work; not called when the key's monthly characters would not cover `expected.translated`. */
  readonly run: () => Promise<T>;
  /**
   * What the result really cost: characters the engines translated, and those answered from a
   * cache (the gateway's or the translator's). `undefined` when `run` failed: nothing translated.
   */
  readonly actual: (result: T | undefined) => CharacterCounts;
}

/**
 * Characters translated per key, UTC day and calendar month (engine work and cache hits apart), and
 * the optional monthly character budget. Engine work of a key with a budget is reserved before the
 * engines run, with one conditional upsert of the key's day and month rows (so parallel requests
 * never spend past it; Postgres unreachable: 503), and corrected after only when the result differs
 * (an item failed, the translator's cache answered). Everything else a key translates is summed in
 * memory and written once a second (CharacterTally). Anonymous requests are counted in the metrics.
 */
export class CharacterUsage {
  private readonly characters: Counter<'kind' | 'caller'>;
  private readonly refusals: Counter;

  constructor(
    private readonly budgets: BudgetStore,
    private readonly tally: CharacterTally,
    metrics: Registry,
  ) {
    this.characters = new Counter({
      name: 'translation_characters_total',
      help: 'Characters answered by POST /api/v1/translate: kind=translated (by the engines) or cached (hot cache); caller=key or anonymous',
      labelNames: ['kind', 'caller'],
      registers: [metrics],
    });
    this.refusals = new Counter({
      name: 'translation_character_budget_refusals_total',
      help: "Translation requests refused because the key's monthly characters would not cover them",
      registers: [metrics],
    });
  }

  /** Runs the translation, counted for `principal` (undefined: an anonymous request). */
  async translate<T>(
    principal: Principal | undefined,
    req: Request,
    work: MeteredTranslation<T>,
  ): Promise<T> {
    const budgeted =
      principal && principal.limits.charactersPerMonth !== null && work.expected.translated > 0;
    if (principal && budgeted) return this.reserved(principal, req, work);
    let result: T | undefined;
    try {
      result = await work.run();
      return result;
    } finally {
      this.served(principal, work.actual(result));
    }
  }

  /** Counts an answer that needed no engine (hot-cache hits): never refused, written with the tally. */
  served(principal: Principal | undefined, counts: CharacterCounts): void {
    this.observe(counts, principal ? 'key' : 'anonymous');
    if (principal) this.tally.add(principal.keyId, counts);
  }

  /** Engine work reserved against the key's monthly budget before it runs. */
  private async reserved<T>(principal: Principal, req: Request, work: MeteredTranslation<T>): Promise<T> {
    const periods = await this.budgets
      .countCharacters(principal.keyId, work.expected, principal.limits.charactersPerMonth)
      .catch((err: unknown) => {
        requestLog(req).error({ err }, 'character budget could not be checked');
        throw new AppError(
          'DEPENDENCY_UNAVAILABLE',
          'cannot check the character budget of this key right now; retry later',
        );
      });
    if (!periods) throw await this.refusal(principal, work.expected.translated);
    let result: T | undefined;
    try {
      result = await work.run();
      return result;
    } finally {
      const actual = work.actual(result);
      this.observe(actual, 'key');
      const change = {
        translated: actual.translated - work.expected.translated,
        cached: actual.cached - work.expected.cached,
      };
      if (change.translated !== 0 || change.cached !== 0) {
        // After the answer: a failed correction leaves the reservation counted (the platform's side).
        this.budgets
          .correctCharacters(principal.keyId, periods, change)
          .catch((err: unknown) => requestLog(req).error({ err, change }, 'character usage not corrected'));
      }
    }
  }

  private observe(counts: CharacterCounts, caller: 'key' | 'anonymous'): void {
    this.characters.inc({ kind: 'translated', caller }, counts.translated);
    this.characters.inc({ kind: 'cached', caller }, counts.cached);
  }

  /** 429 QUOTA_EXCEEDED naming what is left of the month and what the request needed. */
  private async refusal(principal: Principal, requested: number): Promise<AppError> {
    this.refusals.inc();
    const limit = principal.limits.charactersPerMonth ?? 0;
    const used = await this.budgets.spent(principal.keyId).then(
      (spent) => spent.charactersThisMonth,
      () => undefined,
    );
    const remaining = used === undefined ? undefined : Math.max(0, limit - used);
    return budgetSpent('characters', 'month', new Date(), {
      spent: `this request has ${requested} characters to translate; this API key has ${remaining ?? 'fewer'} of its ${limit} characters per month left`,
      details: { limit, requested, ...(remaining === undefined ? {} : { remaining }) },
    });
  }
}
