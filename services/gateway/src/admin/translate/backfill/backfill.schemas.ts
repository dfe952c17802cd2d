import { BACKFILL_ORIGINS, BACKFILL_STATUSES } from '@tp/db';
import { entitySegment } from '@tp/pipeline';
import { z } from 'zod';

/** A backfill as GET /api/admin/translate/status and the backfill routes show it (backfillView). */
export const backfillSchema = z
  .object({
    id: z.uuid(),
    language: z.string(),
    module: z.string().nullable(),
    entity_type: z.string().nullable(),
    origin: z.enum(BACKFILL_ORIGINS).meta({
      description:
        '`config`: the language was added to target_languages; `operator`: POST /api/admin/translate/backfill; `cli`: npm run backfill.',
    }),
    status: z.enum(BACKFILL_STATUSES).meta({
      description:
        '`running` until every requested field translation is stored or dead-lettered (`done`); `cancelled` by an operator; `stopped` when the language left the configuration.',
    }),
    total: z.int().meta({ description: 'Fields of the scope that lacked the language when it started.' }),
    requested: z.int().meta({ description: 'Field translations requested so far.' }),
    done: z.int().meta({ description: 'Requested field translations now stored.' }),
    failed: z.int().meta({ description: 'Requested field translations dead-lettered.' }),
    remaining: z
      .int()
      .meta({ description: 'Fields of the scope still lacking the language, failed ones aside.' }),
    rate_per_s: z.number().meta({ description: 'Fields done per second since it started (until it ended).' }),
    eta_s: z.int().nullable().meta({ description: 'Seconds left at that rate while running; else null.' }),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime().meta({ description: 'Last measured by the worker (about every second).' }),
    finished_at: z.iso.datetime().nullable(),
  })
  .meta({ id: 'Backfill' });

/** Body of POST /api/admin/translate/backfill. */
export const backfillBody = z.strictObject({
  language: z
    .string({ error: 'must be a language code (a string)' })
    .min(1)
    .max(35)
    .meta({ description: 'A configured target language, e.g. `ca`.' }),
  module: entitySegment.optional().meta({ description: 'Only the entities of this module.' }),
  entity_type: entitySegment.optional().meta({ description: 'Only the entities of this type.' }),
});

export const startedBackfillSchema = z
  .object({
    created: z.boolean().meta({
      description:
        'false: a backfill of the same language and filters was already running; it is the one shown.',
    }),
    backfill: backfillSchema,
  })
  .meta({ id: 'StartedBackfill' });
