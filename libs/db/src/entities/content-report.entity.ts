import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const CONTENT_REPORT_KINDS = ['change', 'delete'] as const;
export type ContentReportKind = (typeof CONTENT_REPORT_KINDS)[number];

/**
 * One report of a business system (a change or a deletion) and how far the pipeline got with it, for
 * GET /api/v1/content/tracking/{tracking_id}: written by the gateway with the report's event, marked
 * planned by the planner, its dead letters counted by the dead-letter index. The tracking id is the
 * report's event id; translated requests are counted in content_translations (docs/decisions.md).
 */
export const ContentReport = defineEntity({
  name: 'ContentReport',
  tableName: 'content_reports',
  properties: {
    trackingId: p.uuid().primary(),
    /** The key that reported it: the only one that may track it. */
    apiKeyId: p.uuid(),
    kind: p.enum(CONTENT_REPORT_KINDS),
    module: p.string().length(100),
    entityType: p.string().length(100),
    entityId: p.string().length(200),
    sourceVersion: p.bigint('number').nullable(),
    acceptedAt: p.datetime(),
    plannedAt: p.datetime().nullable(),
    /** The planned requests are every planned field x every planned language. */
    plannedFields: p.array().default([]),
    plannedLanguages: p.array().default([]),
    requests: p.integer().default(0),
    /** Set when the report's own event was dead-lettered (the planner refused it). */
    refusedCode: p.string().length(100).nullable(),
    /** One code per dead-lettered request of the report. */
    deadLetterCodes: p.array().default([]),
  },
  /** The worker prunes reports by age, oldest first (prune-content-history). */
  indexes: [{ name: 'content_reports_accepted_at_idx', properties: ['acceptedAt'] }],
});
export type ContentReport = InferEntity<typeof ContentReport>;
