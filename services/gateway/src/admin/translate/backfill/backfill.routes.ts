import type { Orm } from '@tp/db';
import { backfillView, endBackfills, findBackfill, startBackfill } from '@tp/pipeline';
import { AppError } from '@tp/runtime';
import { z } from 'zod';

import { defineRoute } from '../../../http/route.js';
import { backfillBody, backfillSchema, startedBackfillSchema } from './backfill.schemas.js';

const TAGS = ['admin: translation'];

/** POST /api/admin/translate/backfill and DELETE /api/admin/translate/backfill/{id}. */
export function backfillRoutes(orm: Orm) {
  return [startBackfillRoute(orm), cancelBackfillRoute(orm)];
}

function startBackfillRoute(orm: Orm) {
  return defineRoute({
    method: 'post',
    path: '/api/admin/translate/backfill',
    summary: 'Translate the stored content that lacks a language',
    description:
      'Starts a backfill: every stored field (of `module`, of `entity_type`, when given) that has no translation into `language` is requested, in the background, through the outbox, as one TranslationRequested per entity; fields already translated are skipped. The worker paces it (at most 80 field translations a second, 40 every half second, and none while 200 of its requests are outstanding) and resumes it after a restart. `language` must be a configured target language (409 LANGUAGE_NOT_CONFIGURED; adding one to the configuration starts its backfill by itself); a filter that matches no stored content is 404 ENTITY_NOT_FOUND. One backfill of the same language and filters runs at a time: asking again answers it (`created: false`). Progress is in GET /api/admin/translate/status.',
    tags: TAGS,
    access: 'admin',
    request: { body: backfillBody },
    response: { status: 202, description: 'The backfill runs.', schema: startedBackfillSchema },
    errors: ['UNSUPPORTED_LANGUAGE', 'LANGUAGE_NOT_CONFIGURED', 'ENTITY_NOT_FOUND'],
    handler: async ({ body }) => {
      const started = await orm.em.fork().transactional((em) =>
        startBackfill(em, {
          language: body.language,
          module: body.module,
          entityType: body.entity_type,
          origin: 'operator',
        }),
      );
      return { created: started.created, backfill: backfillView(started.backfill) };
    },
  });
}

function cancelBackfillRoute(orm: Orm) {
  return defineRoute({
    method: 'delete',
    path: '/api/admin/translate/backfill/{id}',
    summary: 'Cancel a backfill',
    description:
      'Stops a running backfill: nothing more is requested. Requests already written (at most 200 field translations) are still translated and stored. A backfill that already ended is 409 CONFLICT; an unknown id 404 BACKFILL_NOT_FOUND.',
    tags: TAGS,
    access: 'admin',
    request: { params: z.strictObject({ id: z.uuid() }) },
    response: { status: 200, description: 'The cancelled backfill.', schema: backfillSchema },
    errors: ['BACKFILL_NOT_FOUND', 'CONFLICT'],
    handler: async ({ params: { id } }) =>
      orm.em.fork().transactional(async (em) => {
        const [cancelled] = await endBackfills(em, 'cancelled', { id });
        if (cancelled) return backfillView(cancelled);
        const found = await findBackfill(em, id);
        if (!found) throw new AppError('BACKFILL_NOT_FOUND', `no backfill has id ${id}`, { id });
        throw new AppError('CONFLICT', `backfill ${id} already ended (${found.status})`, {
          id,
          status: found.status,
        });
      }),
  });
}
