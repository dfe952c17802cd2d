import { sql } from '@mikro-orm/core';
import { HEADERS } from '@tp/contracts';
import { ContentReport, executeBound, type ContentReportKind } from '@tp/db';

import type { Em } from './em.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A report of a business system as tracked in content_reports (GET /api/v1/content/tracking/{id}).
 * Its tracking id is the id of the report's event (ContentChanged or ContentDeleted); the requests
 * the planner writes for it carry that id as their causation id.
 */
export interface NewContentReport {
  readonly trackingId: string;
  /** The key that reported it: the only one that may track it. */
  readonly apiKeyId: string;
  readonly kind: ContentReportKind;
  readonly module: string;
  readonly entityType: string;
  readonly entityId: string;
  /** Null for a deletion without a version. */
  readonly sourceVersion: number | null;
}

/**
 * Records an accepted report, in the transaction that writes its event to the outbox: one INSERT
 * through the entity (em.insert, outside the unit of work), accepted at the transaction's time.
 */
export async function recordContentReport(em: Em, report: NewContentReport): Promise<void> {
  await recordContentReports(em, [report]);
}

/** recordContentReport for several reports, in one INSERT. */
export async function recordContentReports(em: Em, reports: readonly NewContentReport[]): Promise<void> {
  if (reports.length === 0) return;
  await em.insertMany(
    ContentReport,
    reports.map(({ trackingId, apiKeyId, kind, module, entityType, entityId, sourceVersion }) => ({
      trackingId,
      apiKeyId,
      kind,
      module,
      entityType,
      entityId,
      sourceVersion,
      acceptedAt: sql.now(),
    })),
  );
}

/**
 * Marks the report of event `trackingId` planned, with the requests it made: each planned field in
 * each planned language (the planner requests every changed field in the same languages). A report
 * produced to Kafka directly has no row, and the update changes nothing.
 */
export async function markContentReportPlanned(
  em: Em,
  trackingId: string,
  requests: readonly { readonly field: string; readonly targetLang: string }[],
): Promise<void> {
  await markContentReportsPlanned(em, [{ trackingId, requests }]);
}

/** markContentReportPlanned for the reports of several events, in one statement. */
export async function markContentReportsPlanned(
  em: Em,
  reports: readonly {
    readonly trackingId: string;
    readonly requests: readonly { readonly field: string; readonly targetLang: string }[];
  }[],
): Promise<void> {
  const rows = reports
    .filter((report) => UUID.test(report.trackingId))
    .map(({ trackingId, requests }) => ({
      id: trackingId,
      fields: [...new Set(requests.map((r) => r.field))],
      languages: [...new Set(requests.map((r) => r.targetLang))],
      requests: requests.length,
    }));
  if (rows.length === 0) return;
  await executeBound(
    em,
    // The rows travel as JSON: the driver would spread an array parameter.
    'update content_reports r set planned_at = now(), ' +
      'planned_fields = array(select jsonb_array_elements_text(p.fields)), ' +
      'planned_languages = array(select jsonb_array_elements_text(p.languages)), requests = p.requests ' +
      'from jsonb_to_recordset(?::jsonb) as p(id uuid, fields jsonb, languages jsonb, requests int) ' +
      'where r.tracking_id = p.id',
    [JSON.stringify(rows)],
    'run',
  );
}

/**
 * Counts a new dead letter on the report it belongs to: the report's own event (the planner refused
 * it), or one of its requests (whose causation id is the report's event id). One primary-key update
 * at most each; dead letters of anything else change nothing.
 */
export async function countDeadLetterOnReport(
  em: Em,
  headers: Readonly<Record<string, string>>,
  errorCode: string,
): Promise<void> {
  const eventId = headers[HEADERS.eventId];
  const causationId = headers[HEADERS.causationId];
  if (eventId && UUID.test(eventId)) {
    await em.execute(
      'update content_reports set refused_code = ? where tracking_id = ?',
      [errorCode, eventId],
      'run',
    );
  }
  if (causationId && UUID.test(causationId)) {
    await em.execute(
      'update content_reports set dead_letter_codes = array_append(dead_letter_codes, ?) where tracking_id = ?',
      [errorCode, causationId],
      'run',
    );
  }
}

/** A tracked report as stored, with how many of its planned requests have a stored translation. */
export interface ContentReportRow {
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
  /** Planned field x language pairs with a translation of the reported version or newer (bigint). */
  readonly translated: string;
}

// The report by its primary key; its translations through content_translations' unique index
// (entity_type, entity_id, field, target_lang): the entity's rows only, never a scan of the table.
const REPORT_QUERY =
  'select r.*, (select count(*) from content_translations t where t.entity_type = r.entity_type ' +
  'and t.entity_id = r.entity_id and t.field = any(r.planned_fields) ' +
  'and t.target_lang = any(r.planned_languages) and t.source_version >= r.source_version) as translated ' +
  'from content_reports r where r.tracking_id = ? and r.api_key_id = ?';

/** The report `trackingId` if the key `apiKeyId` made it; undefined otherwise (so ids do not leak). */
export async function readContentReport(
  em: Em,
  trackingId: string,
  apiKeyId: string,
): Promise<ContentReportRow | undefined> {
  const [row] = await em.execute<ContentReportRow[]>(REPORT_QUERY, [trackingId, apiKeyId]);
  return row;
}
