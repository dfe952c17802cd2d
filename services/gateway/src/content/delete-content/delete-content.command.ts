import { Command } from '@nestjs/cqrs';

/** A business system deleted one entity. */
export interface ContentDeletion {
  readonly module: string;
  readonly entityType: string;
  readonly entityId: string;
  /** The entity's version at its deletion; null: the highest stored version. */
  readonly sourceVersion: number | null;
}

export interface DeletionAccepted {
  /** Id of the ContentDeleted event written to the outbox. */
  readonly trackingId: string;
}

/** Deletes an entity's content; accepted once its ContentDeleted event is in the outbox. */
export class DeleteContentCommand extends Command<DeletionAccepted> {
  constructor(
    readonly deletion: ContentDeletion,
    /** The request's id: the correlation id of everything the deletion causes. */
    readonly correlationId: string,
    /** The id of the key that deletes it: the only one that may track it. */
    readonly apiKeyId: string,
  ) {
    super();
  }
}
