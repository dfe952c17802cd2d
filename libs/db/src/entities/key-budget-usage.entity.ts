import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

import { ApiKey } from './api-key.entity.js';

export const BUDGET_PERIODS = ['day', 'month'] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

/**
 * What one key spent in one budget period (a UTC day or a UTC calendar month), counted by the gateway
 * with conditional upserts so that parallel requests cannot spend past a limit. `tokens` includes the
 * reservations of chat completions still in flight. Requests are counted on day rows only.
 * `characters` are the characters of texts the engines translated for the key (the monthly character
 * budget counts them, including reservations of translations in flight); `cached_characters` those
 * answered from the hot cache, counted apart and never against the budget.
 */
export const KeyBudgetUsage = defineEntity({
  name: 'KeyBudgetUsage',
  tableName: 'key_budget_usage',
  properties: {
    apiKey: p.manyToOne(ApiKey).mapToPk().primary().deleteRule('cascade'),
    period: p.enum(BUDGET_PERIODS).primary(),
    /** First day of the period (UTC). */
    startsOn: p.date().primary(),
    requests: p.integer().default(0),
    tokens: p.bigint('number').default(0),
    characters: p.bigint('number').default(0),
    cachedCharacters: p.bigint('number').default(0),
  },
});
export type KeyBudgetUsage = InferEntity<typeof KeyBudgetUsage>;
