import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const BACKFILL_ORIGINS = ['config', 'operator', 'cli'] as const;
export type BackfillOrigin = (typeof BACKFILL_ORIGINS)[number];

export const BACKFILL_STATUSES = ['running', 'done', 'cancelled', 'stopped'] as const;
export type BackfillStatus = (typeof BACKFILL_STATUSES)[number];

/**
 * One backfill: the translation into `language` of every stored field (of `module`, of `entityType`,
 * when set) that lacks it. The worker's runner advances the cursor (the last entity requested, in
 * (entity_type, entity_id) order) in the transaction that writes the requests to the outbox, and
 * records the counts it measures; the SQL is the content store's (libs/pipeline, backfills.ts).
 */
export const TranslationBackfill = defineEntity({
  name: 'TranslationBackfill',
  tableName: 'translation_backfills',
  properties: {
    id: p.uuid().primary(),
    language: p.string().length(20),
    module: p.string().length(100).nullable(),
    entityType: p.string().length(100).nullable(),
    /** Who started it: a language added to the configuration, the admin API, or `npm run backfill`. */
    origin: p.enum(BACKFILL_ORIGINS),
    /** running until every request is answered (done), cancelled, or stopped (language removed). */
    status: p.enum(BACKFILL_STATUSES).default('running'),
    cursorType: p.string().length(100).default(''),
    cursorId: p.string().length(200).default(''),
    /** Fields lacking the language when the backfill started. */
    total: p.integer().default(0),
    /** Field translations requested so far. */
    requested: p.integer().default(0),
    /** Requested field translations now stored. */
    done: p.integer().default(0),
    /** Requested field translations dead-lettered. */
    failed: p.integer().default(0),
    /** Fields in scope still lacking the language (not counting failed ones). */
    remaining: p.integer().default(0),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
    /** When it was created: fields the planner requested after that are the planner's. */
    sourcesBefore: p.datetime(),
    /** When the cursor reached the end: everything is requested. */
    emittedAt: p.datetime().nullable(),
    finishedAt: p.datetime().nullable(),
  },
  indexes: [
    { name: 'translation_backfills_running_idx', properties: ['createdAt'], where: { status: 'running' } },
  ],
});
export type TranslationBackfill = InferEntity<typeof TranslationBackfill>;
