import type { ContentReportKind, Orm } from '@tp/db';
import { readContentReport } from '@tp/pipeline';

/** How far the pipeline got with one report. */
export type ReportStatus = 'accepted' | 'planned' | 'done' | 'dead_lettered';

export interface ReportProgress {
  readonly trackingId: string;
  readonly kind: ContentReportKind;
  readonly module: string;
  readonly entityType: string;
  readonly entityId: string;
  readonly sourceVersion: number | null;
  readonly status: ReportStatus;
  readonly acceptedAt: Date;
  readonly plannedAt: Date | null;
  /** Field x language requests the planner made for it. */
  readonly requests: number;
  /** Of those, how many have a stored translation of the reported version or newer. */
  readonly translated: number;
  /** Dead-lettered requests per error code. */
  readonly deadLettered: Readonly<Record<string, number>>;
  /** The code the report itself was dead-lettered with (the planner refused it). */
  readonly refusedCode: string | null;
}

/**
 * The progress of a report, for the key that made it; undefined for an unknown id or another key's
 * report (the same answer, so ids do not leak).
 */
export async function reportProgress(
  orm: Orm,
  trackingId: string,
  apiKeyId: string,
): Promise<ReportProgress | undefined> {
  const row = await readContentReport(orm.em.fork(), trackingId, apiKeyId);
  if (!row) return undefined;
  const deadLettered: Record<string, number> = {};
  for (const code of row.dead_letter_codes) deadLettered[code] = (deadLettered[code] ?? 0) + 1;
  const translated = Number(row.translated);
  const failed = row.dead_letter_codes.length;
  const status: ReportStatus =
    row.refused_code !== null
      ? 'dead_lettered'
      : row.planned_at === null
        ? 'accepted'
        : translated + failed >= row.requests
          ? 'done'
          : 'planned';
  return {
    trackingId: row.tracking_id,
    kind: row.kind,
    module: row.module,
    entityType: row.entity_type,
    entityId: row.entity_id,
    sourceVersion: row.source_version === null ? null : Number(row.source_version),
    status,
    acceptedAt: new Date(row.accepted_at),
    plannedAt: row.planned_at === null ? null : new Date(row.planned_at),
    requests: row.requests,
    translated,
    deadLettered,
    refusedCode: row.refused_code,
  };
}
