import type { Orm } from '@tp/db';
import { AppError, requestLog } from '@tp/runtime';
import { z } from 'zod';

import { defineRoute } from '../../http/route.js';
import { reporterOf } from '../../shared/reported-entity.js';
import { reportProgress, type ReportProgress } from './report-tracking.js';

const trackingSchema = z
  .object({
    tracking_id: z.uuid(),
    kind: z.enum(['change', 'delete']).meta({ description: 'A reported change, or a deletion.' }),
    module: z.string(),
    type: z.string(),
    id: z.string(),
    source_version: z.int().nonnegative().nullable(),
    status: z.enum(['accepted', 'planned', 'done', 'dead_lettered']).meta({
      description:
        '`accepted`: in the outbox or on its way to the planner. `planned`: the planner stored it and requested `requests` translations, some still under way. `done`: every request is translated or dead-lettered (a deletion: applied, or ignored as older than the stored content). `dead_lettered`: the planner refused the report itself (`refused_code`).',
    }),
    accepted_at: z.iso.datetime(),
    planned_at: z.iso.datetime().nullable(),
    requests: z.int().nonnegative().meta({ description: 'Translations requested: field x language.' }),
    translated: z.int().nonnegative().meta({
      description: 'Of the requests, those with a stored translation of the reported version or a newer one.',
    }),
    dead_lettered: z.record(z.string(), z.int().positive()).meta({
      description: 'Requests dead-lettered, per error code (operators can replay them).',
    }),
    refused_code: z.string().nullable().meta({
      description: 'Error code the report itself was dead-lettered with, when the planner refused it.',
    }),
  })
  .meta({ id: 'ReportTracking' });

const body = (p: ReportProgress) => ({
  tracking_id: p.trackingId,
  kind: p.kind,
  module: p.module,
  type: p.entityType,
  id: p.entityId,
  source_version: p.sourceVersion,
  status: p.status,
  accepted_at: p.acceptedAt.toISOString(),
  planned_at: p.plannedAt?.toISOString() ?? null,
  requests: p.requests,
  translated: p.translated,
  dead_lettered: { ...p.deadLettered },
  refused_code: p.refusedCode,
});

/** GET /api/v1/content/tracking/{tracking_id}: how far the pipeline got with a report. */
export function trackReportRoute(orm: Orm) {
  return defineRoute({
    method: 'get',
    path: '/api/v1/content/tracking/{tracking_id}',
    summary: 'Track a reported change or deletion',
    description:
      'Any API key, for the reports it made itself: the tracking id answered by POST or DELETE /api/v1/content/{module}/{type}/{id}. Says whether the report was planned, how many field x language translations it requested, how many are translated and how many were dead-lettered (per code), and whether it is done. A tracking id of another key is 404 TRACKING_NOT_FOUND, exactly as an unknown one.',
    tags: ['content'],
    access: 'client',
    request: { params: z.strictObject({ tracking_id: z.uuid() }) },
    response: { status: 200, description: 'The progress of the report.', schema: trackingSchema },
    errors: ['TRACKING_NOT_FOUND', 'DEPENDENCY_UNAVAILABLE'],
    handler: async ({ params, req, principal }) => {
      const progress = await reportProgress(orm, params.tracking_id, reporterOf(principal)).catch(
        (err: unknown) => {
          requestLog(req).error({ err }, 'could not read a report');
          throw new AppError('DEPENDENCY_UNAVAILABLE', 'cannot read the report right now; retry later');
        },
      );
      if (!progress) {
        throw new AppError('TRACKING_NOT_FOUND', `no report ${params.tracking_id} was made with this key`, {
          tracking_id: params.tracking_id,
        });
      }
      return body(progress);
    },
  });
}
