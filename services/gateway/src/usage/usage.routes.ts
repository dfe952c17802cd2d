import type { BudgetStore } from '../keys/budgets/budget.store.js';
import { defineRoute } from '../http/route.js';
import { readUsage, usageSchema } from './read-usage.js';

/** GET /api/v1/usage: the calling key's translated characters (DeepL's /v2/usage, and more). */
export function usageRoute(budgets: BudgetStore) {
  return defineRoute({
    method: 'get',
    path: '/api/v1/usage',
    summary: "The calling key's translated characters and character budget",
    description:
      "Characters (code points) of `POST /api/v1/translate` for this key, per UTC day and calendar month: translated by the engines, and answered from the hot cache (free). `character_count` and `character_limit` are DeepL's `/v2/usage` fields. A translation past the monthly budget is refused with 429 `QUOTA_EXCEEDED` (`details.budget`: `characters_per_month`). This request itself counts against `requests_per_day`.",
    tags: ['keys'],
    access: 'client',
    response: {
      status: 200,
      description: 'The usage of the key this request was made with.',
      schema: usageSchema,
    },
    errors: ['DEPENDENCY_UNAVAILABLE'],
    handler: ({ principal }) => {
      if (!principal) throw new Error('keyed route reached without a principal');
      return readUsage(budgets, principal);
    },
  });
}
