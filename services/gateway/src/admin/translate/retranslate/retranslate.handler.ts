import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { SourceContent, TranslationConfig, insertIntoOutbox, type Orm } from '@tp/db';
import { AppError } from '@tp/runtime';
import type { EventCodec } from '@tp/schemas';

import { TRANSLATION_CONFIG_ID, missingRow } from '../translation-config.store.js';
import { RetranslateEntityCommand } from './retranslate.command.js';
import { retranslationRequests, type Retranslation } from './retranslation-requests.js';

export interface RetranslateDeps {
  readonly orm: Orm;
  readonly codec: EventCodec;
  readonly topicPrefix: string;
}

/**
 * Reads the entity's stored fields and the configured target languages and queues the requests
 * (retranslation-requests.ts) in the outbox, in one transaction. Nothing stored for the entity under
 * that module: 404 ENTITY_NOT_FOUND. Runs even while translation is disabled: an operator asked.
 */
export class RetranslateEntityHandler implements ICommandHandler<RetranslateEntityCommand> {
  constructor(private readonly deps: RetranslateDeps) {}

  async execute({ entity, requestId }: RetranslateEntityCommand): Promise<Retranslation> {
    const { module, entityType, entityId } = entity;
    const origin = { correlationId: requestId, causationId: requestId };
    return this.deps.orm.em.fork().transactional(async (em) => {
      const fields = await em.find(
        SourceContent,
        { module, entityType, entityId },
        { orderBy: { field: 'asc' } },
      );
      if (fields.length === 0) {
        throw new AppError(
          'ENTITY_NOT_FOUND',
          `no source content is stored for ${entityType} ${JSON.stringify(entityId)} of module ${JSON.stringify(module)}`,
          { module, type: entityType, id: entityId },
        );
      }
      const config = await em.findOne(TranslationConfig, { id: TRANSLATION_CONFIG_ID });
      if (!config) throw missingRow();
      const retranslation = retranslationRequests(
        fields,
        config.targetLanguages,
        this.deps.topicPrefix,
        origin,
      );
      await insertIntoOutbox(em, this.deps.codec, retranslation.entries);
      return retranslation;
    });
  }
}

// Decorators applied as calls, as for every command handler (see commands/command-bus.ts).
CommandHandler(RetranslateEntityCommand)(RetranslateEntityHandler);
