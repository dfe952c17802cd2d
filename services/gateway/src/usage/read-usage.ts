import { AppError } from '@tp/runtime';
import { z } from 'zod';

import type { Principal } from '../auth/api-key.store.js';
import { periodEnd, type BudgetStore } from '../keys/budgets/budget.store.js';

const period = (name: string) =>
  z.object({
    characters: z.int().meta({
      description: `Characters (code points) the engines translated for this key this ${name}, with translations in flight.`,
    }),
    cached_characters: z.int().meta({
      description: `Characters answered from the hot cache this ${name}; they do not count against the budget.`,
    }),
    resets_at: z.iso.datetime().meta({ description: `When this ${name} ends (UTC).` }),
  });

/** GET /api/v1/usage: DeepL's /v2/usage fields, then the figures per UTC day and calendar month. */
export const usageSchema = z
  .object({
    character_count: z.int().meta({
      description:
        "DeepL's field: characters translated by the engines this UTC calendar month (= month.characters).",
    }),
    character_limit: z.int().nullable().meta({
      description: "DeepL's field: the key's monthly character budget; null = none.",
    }),
    day: period('UTC day'),
    month: period('UTC calendar month').extend({
      limit: z.int().nullable().meta({ description: 'The monthly character budget; null = none.' }),
      remaining: z
        .int()
        .nullable()
        .meta({ description: 'Characters left this month; null without a budget.' }),
    }),
  })
  .meta({ id: 'CharacterUsage' });

export type UsageReport = z.infer<typeof usageSchema>;

/** What the key translated today and this month, and what is left of its monthly budget. */
export async function readUsage(
  budgets: BudgetStore,
  principal: Principal,
  now = new Date(),
): Promise<UsageReport> {
  // The driver's message (hosts, states) is not the client's to read.
  const spent = await budgets.spent(principal.keyId).catch(() => {
    throw new AppError('DEPENDENCY_UNAVAILABLE', 'cannot read the usage of this key right now; retry later');
  });
  const limit = principal.limits.charactersPerMonth;
  return {
    character_count: spent.charactersThisMonth,
    character_limit: limit,
    day: {
      characters: spent.charactersToday,
      cached_characters: spent.cachedCharactersToday,
      resets_at: periodEnd('day', now).toISOString(),
    },
    month: {
      characters: spent.charactersThisMonth,
      cached_characters: spent.cachedCharactersThisMonth,
      resets_at: periodEnd('month', now).toISOString(),
      limit,
      remaining: limit === null ? null : Math.max(0, limit - spent.charactersThisMonth),
    },
  };
}
