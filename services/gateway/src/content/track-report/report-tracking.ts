import type { ContentReportKind, Orm } from '@tp/db';

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

interface ReportRow {
  readonly tracking_id: string;
  readonly kind: ContentReportKind;
  readonly module: string;
  readonly entity_type: string;
  readonly entity_id: string;
  readonly source_version: string | null;
  /** The driver's raw value (MikroORM's execute does not hydrate dates). */
  readonly accepted_at: Date | string;
  readonly planned_at: Date | string | null;
  readonly requests: number;
  readonly refused_code: string | null;
  readonly dead_letter_codes: string[];
  readonly translated: string;
}

// The report by its primary key; its translations through content_translations' unique index
// (entity_type, entity_id, field, target_lang): the entity's rows only, never a scan of the table.
const QUERY =
  'select r.*, (select count(*) from content_translations t where t.entity_type = r.entity_type ' +
  'and t.entity_id = r.entity_id and t.field = any(r.planned_fields) ' +
  'and t.target_lang = any(r.planned_languages) and t.source_version >= r.source_version) as translated ' +
  'from content_reports r where r.tracking_id = ? and r.api_key_id = ?';

/**
 * The progress of a report, for the key that made it; undefined for an unknown id or another key's
 * report (the same answer, so ids do not leak).
 */
export async function reportProgress(
  orm: Orm,
  trackingId: string,
  apiKeyId: string,
): Promise<ReportProgress | undefined> {
  const [row] = await orm.em.fork().execute<ReportRow[]>(QUERY, [trackingId, apiKeyId]);
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
