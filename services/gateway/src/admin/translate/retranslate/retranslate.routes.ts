import { entityId, entitySegment } from '@tp/pipeline';
import { requestId } from '@tp/runtime';
import { z } from 'zod';

import type { GatewayCommandBus } from '../../../commands/command-bus.js';
import { defineRoute } from '../../../http/route.js';
import { RetranslateEntityCommand } from './retranslate.command.js';

// The same address rules as the content routes: a control character (U+0000 among them, which
// Postgres refuses) is a 400, never a failed query.
const params = z.strictObject({ module: entitySegment, type: entitySegment, id: entityId });

const retranslationSchema = z
  .object({
    requested: z.int().meta({
      description:
        'Field translations queued (fields x languages), in one TranslationRequested per language (or as few as fit).',
    }),
    fields: z.array(z.string()),
    target_languages: z.array(z.string()),
  })
  .meta({ id: 'Retranslation' });

/** POST /api/admin/translate/retranslate/:module/:type/:id: re-enqueues every stored field x target. */
export function retranslateRoute(commands: GatewayCommandBus) {
  return defineRoute({
    method: 'post',
    path: '/api/admin/translate/retranslate/{module}/{type}/{id}',
    summary: 'Re-enqueue the translation of an entity',
    description:
      "Queues the translation of every stored field of the entity into each configured target language (except the field's source language), one request per language carrying the fields, through the outbox, in one transaction; the engines then translate them as usual and the results replace the stored ones. `type` is the entity type (`vendor`) and must belong to `module`: otherwise, or when nothing is stored for the entity, 404 ENTITY_NOT_FOUND. An explicit operator action: it works even when the configuration is disabled (`enabled: false`).",
    tags: ['admin: translation'],
    access: 'admin',
    request: { params },
    response: { status: 202, description: 'The requests were queued.', schema: retranslationSchema },
    errors: ['ENTITY_NOT_FOUND'],
    handler: async ({ params: { module, type, id }, req }) => {
      const command = new RetranslateEntityCommand(
        { module, entityType: type, entityId: id },
        requestId(req),
      );
      const result = await commands.execute(command);
      return {
        requested: result.requested,
        fields: [...result.fields],
        target_languages: [...result.targetLanguages],
      };
    },
  });
}
