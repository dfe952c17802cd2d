import { entityId, entitySegment } from '@tp/pipeline';
import { AppError, requestId, requestLog } from '@tp/runtime';
import { SchemaError } from '@tp/schemas';
import { z } from 'zod';

import { assertInScope } from '../../auth/module-scope.js';
import type { GatewayCommandBus } from '../../commands/command-bus.js';
import { defineRoute } from '../../http/route.js';
import { assertTypeNotReserved, conflictForKey, reporterOf } from '../../shared/reported-entity.js';
import { DeleteContentCommand } from './delete-content.command.js';

const query = z.strictObject({
  source_version: z
    .string()
    .regex(/^\d{1,15}$/, { message: 'must be a non-negative integer' })
    .optional()
    .meta({
      description:
        'Version of the entity in the business system at its deletion. Without it, the highest stored version. A deletion older than the stored content is ignored.',
    }),
});

/** DELETE /api/v1/content/{module}/{type}/{id}: the deletion command of the content pipeline. */
export function deleteContentRoute(commands: GatewayCommandBus) {
  return defineRoute({
    method: 'delete',
    path: '/api/v1/content/{module}/{type}/{id}',
    summary: 'Delete the content of one entity',
    description:
      "Any API key. The entity was deleted in the business system: a ContentDeleted event is written to the outbox in one transaction and answered 202 with a tracking id (its event id). The pipeline then removes the source and every stored translation of the entity and drops its cached reads, after which reads answer 404 ENTITY_NOT_FOUND. The deletion keeps its version: a change of that version or older, or a late translation of one, writes nothing; a newer change brings the entity back. Deleting an entity that is not stored is accepted as well (it may be on its way). Types `text` and `tracking` are reserved (400 ENTITY_TYPE_RESERVED); another module than the type's gets 409 MODULE_CONFLICT; a key scoped to modules gets 403 MODULE_NOT_ALLOWED for any other module. Follow it with GET /api/v1/content/tracking/{tracking_id}.",
    tags: ['content'],
    access: 'client',
    request: { params: z.strictObject({ module: entitySegment, type: entitySegment, id: entityId }), query },
    response: {
      status: 202,
      description: 'Accepted: the deletion is in the outbox and will be processed.',
      schema: z.object({
        tracking_id: z.uuid().meta({ description: 'Id of the ContentDeleted event (its eventId).' }),
        status: z.literal('accepted'),
      }),
    },
    errors: ['MODULE_NOT_ALLOWED', 'MODULE_CONFLICT', 'ENTITY_TYPE_RESERVED', 'DEPENDENCY_UNAVAILABLE'],
    handler: async ({ params, query: q, req, principal }) => {
      assertInScope(principal, params.module);
      assertTypeNotReserved(params.type);
      const deletion = {
        module: params.module,
        entityType: params.type,
        entityId: params.id,
        sourceVersion: q.source_version === undefined ? null : Number(q.source_version),
      };
      const command = new DeleteContentCommand(deletion, requestId(req), reporterOf(principal));
      const accepted = await commands.execute(command).catch((caught: unknown) => {
        const err = conflictForKey(caught, principal, params.type);
        if (err instanceof AppError || err instanceof SchemaError) throw err;
        requestLog(req).error({ err }, 'could not write a content deletion to the outbox');
        throw new AppError('DEPENDENCY_UNAVAILABLE', 'cannot store the deletion right now; retry later');
      });
      return { tracking_id: accepted.trackingId, status: 'accepted' as const };
    },
  });
}
