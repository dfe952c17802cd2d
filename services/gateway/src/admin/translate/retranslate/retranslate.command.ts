import { Command } from '@nestjs/cqrs';

import type { Retranslation } from './retranslation-requests.js';

/** The entity to translate again: its module, type and id as stored. */
export interface EntityToRetranslate {
  readonly module: string;
  readonly entityType: string;
  readonly entityId: string;
}

/** An operator asks for every stored field of an entity to be translated again. */
export class RetranslateEntityCommand extends Command<Retranslation> {
  constructor(
    readonly entity: EntityToRetranslate,
    /** The request's id: the correlation (and causation) id of the requests it queues. */
    readonly requestId: string,
  ) {
    super();
  }
}
