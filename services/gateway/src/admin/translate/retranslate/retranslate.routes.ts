import { SourceContent, TranslationConfig, addToOutbox, type Orm } from '@tp/db';
import { AppError, requestId } from '@tp/runtime';
import type { EventCodec } from '@tp/schemas';
import { z } from 'zod';

import { defineRoute } from '../../../http/route.js';
import { TRANSLATION_CONFIG_ID, missingRow } from '../translation-config.store.js';
import { retranslationRequests } from './retranslation-requests.js';

export interface RetranslateOptions {
  readonly orm: Orm;
  readonly codec: EventCodec;
  readonly topicPrefix: string;
}

// Lengths of the source_contents columns.
const params = z.strictObject({
  module: z.string().min(1).max(100),
  type: z.string().min(1).max(100),
  id: z.string().min(1).max(200),
});

const retranslationSchema = z
  .object({
    requested: z.int().meta({ description: 'TranslationRequested events queued (fields x languages).' }),
    fields: z.array(z.string()),
    target_languages: z.array(z.string()),
  })
  .meta({ id: 'Retranslation' });

/** POST /api/admin/translate/retranslate/:module/:type/:id: re-enqueues every stored field x target. */
export function retranslateRoute({ orm, codec, topicPrefix }: RetranslateOptions) {
  return defineRoute({
    method: 'post',
    path: '/api/admin/translate/retranslate/{module}/{type}/{id}',
    summary: 'Re-enqueue the translation of an entity',
    description:
      "Queues one translation request per stored field of the entity and per configured target language (except the field's source language), through the outbox, in one transaction; the engines then translate them as usual and the results replace the stored ones. `type` is the entity type (`vendor`) and must belong to `module`: otherwise, or when nothing is stored for the entity, 404 ENTITY_NOT_FOUND. An explicit operator action: it works even when the configuration is disabled (`enabled: false`).",
    tags: ['admin: translation'],
    access: 'admin',
    request: { params },
    response: { status: 202, description: 'The requests were queued.', schema: retranslationSchema },
    errors: ['ENTITY_NOT_FOUND'],
    handler: async ({ params: { module, type, id }, req }) => {
      const origin = { correlationId: requestId(req), causationId: requestId(req) };
      const result = await orm.em.fork().transactional(async (em) => {
        const fields = await em.find(
          SourceContent,
          { module, entityType: type, entityId: id },
          { orderBy: { field: 'asc' } },
        );
        if (fields.length === 0) {
          throw new AppError(
            'ENTITY_NOT_FOUND',
            `no source content is stored for ${type} ${JSON.stringify(id)} of module ${JSON.stringify(module)}`,
            { module, type, id },
          );
        }
        const config = await em.findOne(TranslationConfig, { id: TRANSLATION_CONFIG_ID });
        if (!config) throw missingRow();
        const retranslation = retranslationRequests(fields, config.targetLanguages, topicPrefix, origin);
        addToOutbox(em, codec, retranslation.entries);
        return retranslation;
      });
      return {
        requested: result.entries.length,
        fields: [...result.fields],
        target_languages: [...result.targetLanguages],
      };
    },
  });
}
