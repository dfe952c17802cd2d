import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { insertIntoOutbox, type Orm } from '@tp/db';
import { contentChangedEntry, recordContentReport } from '@tp/pipeline';
import type { EventCodec } from '@tp/schemas';

import { assertTypeOwner } from '../../shared/reported-entity.js';

import { assertDeliverable, type TopicLimit } from './deliverable-size.js';
import { ReportContentChangeCommand, type ChangeAccepted } from './report-change.command.js';

export interface ReportChangeDeps {
  readonly orm: Orm;
  readonly codec: EventCodec;
  readonly topicPrefix: string;
  /** The topics' max.message.bytes; a change that could not travel is refused (deliverable-size.ts). */
  readonly topicLimit?: TopicLimit;
}

/**
 * Checks that the change can travel through the pipeline (413 CONTENT_TOO_LARGE otherwise) and that
 * the entity type belongs to the reporting module, and writes ContentChanged to the outbox with the
 * report's tracking row, in one transaction; the worker's relay publishes it and the planner stores
 * the source.
 */
export class ReportContentChangeHandler implements ICommandHandler<ReportContentChangeCommand> {
  constructor(private readonly deps: ReportChangeDeps) {}

  async execute({ change, correlationId, apiKeyId }: ReportContentChangeCommand): Promise<ChangeAccepted> {
    const entry = contentChangedEntry(change, this.deps.topicPrefix, { correlationId, causationId: null });
    if (this.deps.topicLimit) {
      await assertDeliverable(change, entry, this.deps.codec, this.deps.topicPrefix, this.deps.topicLimit);
    }
    await this.deps.orm.em.fork().transactional(async (em) => {
      await assertTypeOwner(em, change.module, change.entityType);
      await insertIntoOutbox(em, this.deps.codec, [entry]);
      await recordContentReport(em, {
        trackingId: entry.event.eventId,
        apiKeyId,
        kind: 'change',
        module: change.module,
        entityType: change.entityType,
        entityId: change.entityId,
        sourceVersion: change.sourceVersion,
      });
    });
    return { trackingId: entry.event.eventId };
  }
}

// Decorators applied as calls: the workspace compiles without experimentalDecorators (see
// commands/command-bus.ts), and this is exactly what `@CommandHandler(...)` on the class does.
CommandHandler(ReportContentChangeCommand)(ReportContentChangeHandler);
