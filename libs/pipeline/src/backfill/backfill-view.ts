import type { Backfill } from '../content-store/backfills.js';

/** A backfill as the admin API, the console and the CLI show it. */
export interface BackfillView {
  readonly id: string;
  readonly language: string;
  readonly module: string | null;
  readonly entity_type: string | null;
  readonly origin: Backfill['origin'];
  readonly status: Backfill['status'];
  readonly total: number;
  readonly requested: number;
  readonly done: number;
  readonly failed: number;
  readonly remaining: number;
  /** Field translations done per second since the backfill started (to its end, once ended). */
  readonly rate_per_s: number;
  /** Seconds left at that rate, while running; null when unknown (nothing done yet) or ended. */
  readonly eta_s: number | null;
  readonly created_at: string;
  readonly updated_at: string;
  readonly finished_at: string | null;
}

/** The row with its rate and ETA as of `now`. */
export function backfillView(b: Backfill, now: Date = new Date()): BackfillView {
  const end = b.finishedAt ?? now;
  const seconds = Math.max(0.001, (end.getTime() - b.createdAt.getTime()) / 1000);
  const rate = b.done / seconds;
  const running = b.status === 'running';
  return {
    id: b.id,
    language: b.language,
    module: b.module,
    entity_type: b.entityType,
    origin: b.origin,
    status: b.status,
    total: b.total,
    requested: b.requested,
    done: b.done,
    failed: b.failed,
    remaining: b.remaining,
    rate_per_s: Math.round(rate * 10) / 10,
    eta_s: running && rate > 0 ? Math.ceil(b.remaining / rate) : null,
    created_at: b.createdAt.toISOString(),
    updated_at: b.updatedAt.toISOString(),
    finished_at: b.finishedAt ? b.finishedAt.toISOString() : null,
  };
}
