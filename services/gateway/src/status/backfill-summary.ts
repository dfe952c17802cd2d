import type { Orm } from '@tp/db';
import { backfillView, latestBackfills } from '@tp/pipeline';
import { z } from 'zod';

import { backfillSchema } from '../admin/translate/backfill/backfill.schemas.js';

export const backfillsSchema = z
  .object({
    latest: z.array(backfillSchema),
    error: z.string().optional(),
  })
  .meta({
    description:
      'Backfills (POST /api/admin/translate/backfill, or a language added to the configuration): the running ones, then the latest ended, with their progress.',
  });

export type BackfillSummary = z.input<typeof backfillsSchema>;

/** The running backfills and the latest ended ones. Never throws: a status page must answer. */
export async function backfillSummary(orm: Orm, latest: number): Promise<BackfillSummary> {
  try {
    const rows = await latestBackfills(orm.em.fork(), latest);
    const now = new Date();
    return { latest: rows.map((row) => backfillView(row, now)) };
  } catch (err) {
    return { latest: [], error: err instanceof Error ? err.message : String(err) };
  }
}
