import { API_KEY_ROLES } from '@tp/db';
import { z } from 'zod';

import { defineRoute } from '../http/route.js';
import { periodEnd, type BudgetStore } from './budgets/budget.store.js';

const budget = z
  .object({
    limit: z.number().nullable().meta({ description: 'null = no limit.' }),
    used: z.number().meta({
      description:
        'Spent in the current period; for tokens and characters, including what requests in flight have reserved. Requests are counted only while a limit is set; characters always (GET /api/v1/usage).',
    }),
    remaining: z.number().nullable().meta({ description: 'null when there is no limit.' }),
    resets_at: z.iso.datetime().meta({ description: 'When the period ends (UTC).' }),
  })
  .meta({ id: 'KeyBudget' });

const remaining = (limit: number | null, used: number) => (limit === null ? null : Math.max(0, limit - used));

/** Lets a client check its key (its role and its budgets) before relying on it. */
export function whoamiRoute(budgets: BudgetStore) {
  return defineRoute({
    method: 'get',
    path: '/api/v1/me',
    summary: 'Describe the calling API key, its module scope and its budgets',
    description:
      'This request itself counts against `requests_per_day`. Limits are as of the key lookup, which a gateway process may remember for `API_KEY_CACHE_MS`.',
    tags: ['keys'],
    access: 'client',
    response: {
      status: 200,
      description: 'The key this request was made with.',
      schema: z.object({
        id: z.uuid(),
        name: z.string(),
        role: z.enum(API_KEY_ROLES),
        modules: z.array(z.string()).nullable().meta({
          description: 'The modules this key may report and read; null: every module.',
        }),
        budgets: z.object({
          requests_per_day: budget,
          tokens_per_day: budget,
          tokens_per_month: budget,
          characters_per_month: budget,
        }),
      }),
    },
    errors: ['DEPENDENCY_UNAVAILABLE'],
    handler: async ({ principal }) => {
      if (!principal) throw new Error('keyed route reached without a principal');
      const spent = await budgets.spent(principal.keyId);
      const { limits } = principal;
      const day = periodEnd('day').toISOString();
      const month = periodEnd('month').toISOString();
      const entry = (limit: number | null, used: number, resets_at: string) => ({
        limit,
        used,
        remaining: remaining(limit, used),
        resets_at,
      });
      return {
        id: principal.keyId,
        name: principal.name,
        role: principal.role,
        modules: principal.modules ? [...principal.modules] : null,
        budgets: {
          requests_per_day: entry(limits.requestsPerDay, spent.requestsToday, day),
          tokens_per_day: entry(limits.tokensPerDay, spent.tokensToday, day),
          tokens_per_month: entry(limits.tokensPerMonth, spent.tokensThisMonth, month),
          characters_per_month: entry(limits.charactersPerMonth, spent.charactersThisMonth, month),
        },
      };
    },
  });
}
