import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const API_KEY_ROLES = ['client', 'admin'] as const;
export type ApiKeyRole = (typeof API_KEY_ROLES)[number];

/** An API key, stored only as a hash; the key itself is shown once at creation. */
export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: p.uuid().primary(),
    name: p.string().length(100),
    role: p.enum(API_KEY_ROLES),
    /** SHA-256 hex of the full key. */
    keyHash: p.string().length(64).unique('api_keys_key_hash_unique'),
    /** First characters of the key, to tell keys apart in lists and logs. */
    keyPrefix: p.string().length(16),
    createdAt: p.datetime().onCreate(() => new Date()),
    lastUsedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
    /** Budgets set by an admin; null = no limit. Requests count every authenticated request. */
    requestsPerDay: p.integer().nullable(),
    /** Chat tokens (the provider's total_tokens) per UTC day and per UTC calendar month. */
    tokensPerDay: p.bigint('number').nullable(),
    tokensPerMonth: p.bigint('number').nullable(),
    /** Characters translated by the engines per UTC calendar month (hot-cache hits are free). */
    charactersPerMonth: p.bigint('number').nullable(),
    /** Modules the key may report and read (issue 16); null: every module. */
    modules: p.array().nullable(),
  },
});
export type ApiKey = InferEntity<typeof ApiKey>;
