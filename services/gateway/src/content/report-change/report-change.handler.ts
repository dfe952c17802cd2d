import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { insertIntoOutbox, type Orm } from '@tp/db';
import { contentChangedEntry } from '@tp/pipeline';
import { AppError } from '@tp/runtime';
import type { EventCodec } from '@tp/schemas';

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
 * the entity type belongs to the reporting module, and writes ContentChanged to the outbox, in one
 * transaction; the worker's relay publishes it and the planner stores the source.
 */
export class ReportContentChangeHandler implements ICommandHandler<ReportContentChangeCommand> {
  constructor(private readonly deps: ReportChangeDeps) {}

  async execute({ change, correlationId }: ReportContentChangeCommand): Promise<ChangeAccepted> {
    const entry = contentChangedEntry(change, this.deps.topicPrefix, { correlationId, causationId: null });
    if (this.deps.topicLimit) {
      await assertDeliverable(change, entry, this.deps.codec, this.deps.topicPrefix, this.deps.topicLimit);
    }
    // Plain SQL, as on the planner's path: the unit of work cost more than these two statements.
    await this.deps.orm.em.fork().transactional(async (em) => {
      // One type belongs to one module (docs/pipeline.md), so any stored row of the type names its
      // owner: one index lookup, however many entities the type has. The planner checks again, for
      // changes produced to Kafka directly and for two modules racing here before either was planned.
      const [owner] = await em.execute<{ module: string }[]>(
        'select module from source_contents where entity_type = ? limit 1',
        [change.entityType],
      );
      if (owner && owner.module !== change.module) {
        throw new AppError(
          'MODULE_CONFLICT',
          `entity type ${change.entityType} belongs to module ${owner.module}, not ${change.module}`,
          { type: change.entityType, module: owner.module },
        );
      }
      await insertIntoOutbox(em, this.deps.codec, [entry]);
    });
    return { trackingId: entry.event.eventId };
  }
}

// Decorators applied as calls: the workspace compiles without experimentalDecorators (see
// commands/command-bus.ts), and this is exactly what `@CommandHandler(...)` on the class does.
CommandHandler(ReportContentChangeCommand)(ReportContentChangeHandler);
