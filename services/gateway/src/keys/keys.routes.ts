import { API_KEY_ROLES } from '@tp/db';
import { codePointString } from '@tp/runtime';
import { z } from 'zod';

import type { ApiKeyStore, LimitsChange } from '../auth/api-key.store.js';
import { MAX_KEY_MODULES, keyModules } from '../auth/module-scope.js';
import { defineRoute } from '../http/route.js';
import { NOTHING_SPENT, type BudgetStore } from './budgets/budget.store.js';

/** The largest limits: requests fit Postgres' int, tokens stay exact in a JavaScript number. */
export const MAX_REQUESTS_PER_DAY = 2_000_000_000;
export const MAX_TOKENS_LIMIT = 1_000_000_000_000_000;
export const MAX_CHARACTERS_LIMIT = MAX_TOKENS_LIMIT;

const limit = (max: number, description: string) =>
  z
    .number()
    .int()
    .min(0)
    .max(max)
    .nullable()
    .meta({ description: `${description}; null = no limit.` });

const limitFields = {
  requests_per_day: limit(
    MAX_REQUESTS_PER_DAY,
    'Authenticated requests per UTC day, any route; 0 refuses every request',
  ),
  tokens_per_day: limit(MAX_TOKENS_LIMIT, 'Chat tokens (total_tokens) per UTC day'),
  tokens_per_month: limit(MAX_TOKENS_LIMIT, 'Chat tokens (total_tokens) per UTC calendar month'),
  characters_per_month: limit(
    MAX_CHARACTERS_LIMIT,
    'Characters (code points) the engines translate per UTC calendar month, through POST /api/v1/translate; hot-cache hits do not count',
  ),
};

const limitsBody = z.strictObject({
  requests_per_day: limitFields.requests_per_day.optional(),
  tokens_per_day: limitFields.tokens_per_day.optional(),
  tokens_per_month: limitFields.tokens_per_month.optional(),
  characters_per_month: limitFields.characters_per_month.optional(),
});

/** Only the fields sent change; a field left out keeps its value. */
function limitsChange(body: z.infer<typeof limitsBody>): LimitsChange {
  return {
    ...(body.requests_per_day === undefined ? {} : { requestsPerDay: body.requests_per_day }),
    ...(body.tokens_per_day === undefined ? {} : { tokensPerDay: body.tokens_per_day }),
    ...(body.tokens_per_month === undefined ? {} : { tokensPerMonth: body.tokens_per_month }),
    ...(body.characters_per_month === undefined ? {} : { charactersPerMonth: body.characters_per_month }),
  };
}

export const apiKeySchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    role: z.enum(API_KEY_ROLES),
    prefix: z.string().meta({ description: 'First characters of the key, to tell keys apart.' }),
    created_at: z.iso.datetime(),
    last_used_at: z.iso.datetime().nullable(),
    revoked_at: z.iso.datetime().nullable(),
    ...limitFields,
    modules: z.array(z.string()).nullable().meta({
      description: 'The modules a scoped client key may report and read; null: every module.',
    }),
  })
  .meta({ id: 'ApiKey' });

const createBody = limitsBody
  .extend({
    role: z.enum(API_KEY_ROLES),
    name: codePointString(100).trim().min(1).optional(),
    modules: keyModules.optional().meta({
      description: `Scope a client key to these modules (1-${MAX_KEY_MODULES}, each like the content routes' module): it may then report and read only their entities. Absent: every module. Admin keys cannot be scoped.`,
    }),
  })
  .refine((body) => body.modules === undefined || body.role === 'client', {
    message: 'only client keys can be scoped to modules',
    path: ['modules'],
  });

/** Admin management of API keys; the CLI (keys.cli.ts) does the same against the database. */
export function keyRoutes(store: ApiKeyStore, budgets: BudgetStore) {
  return [createKeyRoute(store), listKeysRoute(store, budgets), updateKeyRoute(store), revokeKeyRoute(store)];
}

const count = (description: string) => z.int().min(0).meta({ description });

/** A key's characters of POST /api/v1/translate in the current UTC day and month (GET /api/v1/usage). */
const keyCharacters = z.object({
  today: count('Characters the engines translated today (UTC).'),
  cached_today: count('Characters answered from the hot cache today.'),
  month: count('Characters the engines translated this UTC calendar month (the budget counts these).'),
  cached_month: count('Characters answered from the hot cache this month.'),
});

const createKeyRoute = (store: ApiKeyStore) =>
  defineRoute({
    method: 'post',
    path: '/api/admin/keys',
    summary: 'Create an API key',
    description: 'The key is in this answer only; the platform keeps just its SHA-256 hash.',
    tags: ['admin: keys'],
    access: 'admin',
    request: { body: createBody },
    response: {
      status: 201,
      description: 'The new key, shown once.',
      schema: apiKeySchema.extend({ key: z.string() }),
    },
    handler: ({ body }) =>
      store.create(body.role, body.name ?? `${body.role} key`, {
        limits: limitsChange(body),
        ...(body.modules ? { modules: body.modules } : {}),
      }),
  });

const listKeysRoute = (store: ApiKeyStore, budgets: BudgetStore) =>
  defineRoute({
    method: 'get',
    path: '/api/admin/keys',
    summary: 'List API keys (without the keys themselves)',
    tags: ['admin: keys'],
    access: 'admin',
    response: {
      status: 200,
      description: "All keys, oldest first, with this day's and month's translated characters.",
      schema: z.object({ keys: z.array(apiKeySchema.extend({ characters: keyCharacters })) }),
    },
    handler: async () => {
      const [keys, characters] = await Promise.all([store.list(), budgets.charactersByKey()]);
      return {
        keys: keys.map((key) => {
          const spent = characters.get(key.id) ?? NOTHING_SPENT;
          return {
            ...key,
            characters: {
              today: spent.charactersToday,
              cached_today: spent.cachedCharactersToday,
              month: spent.charactersThisMonth,
              cached_month: spent.cachedCharactersThisMonth,
            },
          };
        }),
      };
    },
  });

const updateKeyRoute = (store: ApiKeyStore) =>
  defineRoute({
    method: 'patch',
    path: '/api/admin/keys/{id}',
    summary: "Set an API key's budgets",
    description:
      'Only the fields sent change; null removes a limit. Takes effect on the next request through this gateway process, within `API_KEY_CACHE_MS` through others. What the key already spent today and this month still counts.',
    tags: ['admin: keys'],
    access: 'admin',
    request: { params: z.strictObject({ id: z.uuid() }), body: limitsBody },
    response: { status: 200, description: 'The key with its budgets.', schema: apiKeySchema },
    errors: ['NOT_FOUND'],
    handler: ({ params, body }) => store.setLimits(params.id, limitsChange(body)),
  });

const revokeKeyRoute = (store: ApiKeyStore) =>
  defineRoute({
    method: 'delete',
    path: '/api/admin/keys/{id}',
    summary: 'Revoke an API key',
    description: 'Takes effect on the next request. Revoking twice keeps the first revocation time.',
    tags: ['admin: keys'],
    access: 'admin',
    request: { params: z.strictObject({ id: z.uuid() }) },
    response: { status: 200, description: 'The revoked key.', schema: apiKeySchema },
    errors: ['NOT_FOUND'],
    handler: ({ params }) => store.revoke(params.id),
  });
