import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { insertIntoOutbox, type Orm } from '@tp/db';
import { contentDeletedEntry, recordContentReport } from '@tp/pipeline';
import type { EventCodec } from '@tp/schemas';

import { assertTypeOwner } from '../../shared/reported-entity.js';
import { DeleteContentCommand, type DeletionAccepted } from './delete-content.command.js';

export interface DeleteContentDeps {
  readonly orm: Orm;
  readonly codec: EventCodec;
  readonly topicPrefix: string;
}

/**
 * Checks that the entity type belongs to the deleting module and writes ContentDeleted to the outbox
 * with the report's tracking row, in one transaction. The planner removes the source and the
 * translations when it reads the event, in order with the entity's changes (same topic and key).
 */
export class DeleteContentHandler implements ICommandHandler<DeleteContentCommand> {
  constructor(private readonly deps: DeleteContentDeps) {}

  async execute({ deletion, correlationId, apiKeyId }: DeleteContentCommand): Promise<DeletionAccepted> {
    const entry = contentDeletedEntry(deletion, this.deps.topicPrefix, { correlationId, causationId: null });
    await this.deps.orm.em.fork().transactional(async (em) => {
      await assertTypeOwner(em, deletion.module, deletion.entityType);
      await insertIntoOutbox(em, this.deps.codec, [entry]);
      await recordContentReport(em, {
        trackingId: entry.event.eventId,
        apiKeyId,
        kind: 'delete',
        ...deletion,
      });
    });
    return { trackingId: entry.event.eventId };
  }
}

// Decorators applied as calls, as for every command handler (see commands/command-bus.ts).
CommandHandler(DeleteContentCommand)(DeleteContentHandler);
