import { insertIntoOutbox } from '@tp/db';
import {
  countLackingFields,
  nextLackingFields,
  recordBackfillProgress,
  translationRequestedEntry,
  translationRequests,
  type Backfill,
  type BackfillCursor,
  type BackfillProgress,
  type Em,
} from '@tp/pipeline';
import type { EventCodec } from '@tp/schemas';

/**
 * The throttle of every backfill (docs/pipeline.md, "Backfill"): fixed, so live traffic keeps its
 * latency (bench:bulk --live: the p99 of live requests beside a backfill within 2x of their p99
 * without). A tick requests at most `fieldsPerTick` field translations over all running backfills
 * (80 a second with the runner's 500 ms tick: small steps, not a burst a second), and a backfill
 * requests nothing more while `maxInFlight` of its requested fields are neither stored nor
 * dead-lettered. At 200 a second (1,000 in flight) the live p99 was 2.7-2.9x.
 */
export const BACKFILL_LIMITS = { tickMs: 500, fieldsPerTick: 40, maxInFlight: 200 } as const;

export interface StepOutput {
  readonly codec: EventCodec;
  readonly topicPrefix: string;
}

/** What one step of a backfill measured and did. */
export interface StepOutcome extends BackfillProgress {
  readonly failed: number;
  readonly inFlight: number;
}

/**
 * One tick of one running backfill, in the runner's transaction (the row is locked): it measures the
 * fields of its scope that still lack the language, and unless MAX_IN_FLIGHT of its requests are
 * outstanding, writes the requests of the next whole entities (at most `budget` fields) to the outbox
 * and moves the cursor past them, in the same transaction: a crash either keeps both or neither, so
 * nothing is requested twice or skipped. Every request answered after the cursor reached the end: done.
 */
export async function stepBackfill(
  em: Em,
  job: Backfill,
  budget: number,
  output: StepOutput,
): Promise<StepOutcome> {
  // Fields the planner requested after the backfill was created are the planner's.
  const { lacking, requestedLacking } = await countLackingFields(em, job, job.cursor);
  // Requested fields still lacking are in flight, or dead-lettered (counted in `failed`).
  const inFlight = Math.max(0, requestedLacking - job.failed);
  const done = Math.max(0, job.requested - requestedLacking);
  let cursor: BackfillCursor = job.cursor;
  let requested = 0;
  let emitted = job.emittedAt !== null;
  const room = Math.min(budget, BACKFILL_LIMITS.maxInFlight - inFlight);
  if (!emitted && room > 0) {
    const fields = await nextLackingFields(em, job, job.cursor, room);
    if (fields.length === 0) emitted = true;
    else {
      await requestTranslations(em, job, fields, output);
      const last = fields[fields.length - 1] as (typeof fields)[number];
      cursor = { entityType: last.entityType, entityId: last.entityId };
      requested = fields.length;
    }
  }
  const progress: BackfillProgress = {
    cursor,
    requested,
    done,
    remaining: Math.max(0, lacking - job.failed),
    emitted,
    finished: emitted && requested === 0 && inFlight === 0,
  };
  await recordBackfillProgress(em, job.id, progress);
  return { ...progress, failed: job.failed, inFlight: inFlight + requested };
}

/** One TranslationRequested per entity (and source language), caused by the backfill (its id). */
async function requestTranslations(
  em: Em,
  job: Backfill,
  fields: Parameters<typeof translationRequests>[0],
  { codec, topicPrefix }: StepOutput,
): Promise<void> {
  const origin = { correlationId: job.id, causationId: job.id };
  const entries = translationRequests(fields, job.language).map((request) =>
    translationRequestedEntry(request, topicPrefix, origin),
  );
  await insertIntoOutbox(em, codec, entries);
}
