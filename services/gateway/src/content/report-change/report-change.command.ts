import { Command } from '@nestjs/cqrs';
import type { TextFormat } from '@tp/translation';

/** One changed field as the business system sent it. */
export interface ReportedField {
  readonly name: string;
  readonly text: string;
  /** How the text is written; its translations are written the same way. */
  readonly format: TextFormat;
}

/** Changed source content of one entity, at one version of it. */
export interface ContentChange {
  readonly module: string;
  readonly entityType: string;
  readonly entityId: string;
  /** A code of the language list. */
  readonly sourceLang: string;
  readonly sourceVersion: number;
  readonly fields: readonly ReportedField[];
}

export interface ChangeAccepted {
  /** Id of the ContentChanged event written to the outbox. */
  readonly trackingId: string;
}

/** A business system reports changed content; accepted once its ContentChanged event is in the outbox. */
export class ReportContentChangeCommand extends Command<ChangeAccepted> {
  constructor(
    readonly change: ContentChange,
    /** The request's id: the correlation id of everything the change causes. */
    readonly correlationId: string,
    /** The id of the key that reports it: the only one that may track it. */
    readonly apiKeyId: string,
  ) {
    super();
  }
}
