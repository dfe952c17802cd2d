import { randomUUID } from 'node:crypto';

import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { Orm } from '@tp/db';
import {
  contentReadCacheKey,
  shareSources,
  upsertTranslations,
  type StoredSource,
  type TranslationWrite,
} from '@tp/pipeline';
import { commandTimeout, type RedisClient } from '@tp/redis';
import { AppError } from '@tp/runtime';

import {
  EditTranslationCommand,
  type TranslationEdit,
  type TranslationEdited,
} from './edit-translation.command.js';

export interface EditTranslationDeps {
  readonly orm: Orm;
  readonly redis: RedisClient | undefined;
  readonly keyPrefix: string;
}

/** The `engine` column of a human translation (the read meta shows no engine for it). */
export const HUMAN_ENGINE = 'human';

/** Longest the read cache's deletion may hold the answer; the cached views expire by their TTL. */
const dropBound = commandTimeout(250);

/**
 * Stores human translations of the entity's current source fields, in one transaction that holds the
 * source rows (FOR SHARE) so the planner cannot change them in between: each row is the current
 * text's translation, origin `human`, written by the key, not stale. It goes through the content
 * store's one upsert of content_translations, whose rules say a human edit wins for its source
 * version and a machine result never replaces it there. The entity's read cache is dropped after.
 */
export class EditTranslationHandler implements ICommandHandler<EditTranslationCommand> {
  constructor(private readonly deps: EditTranslationDeps) {}

  async execute({ edit }: EditTranslationCommand): Promise<TranslationEdited> {
    const result = await this.deps.orm.em.fork().transactional(async (em) => {
      const rows = checkedRows(edit, await shareSources(em, edit));
      const requestedAt = Date.now();
      await upsertTranslations(
        em,
        rows.map(([source, text]) => humanWrite(edit, source, text, requestedAt)),
      );
      return {
        sourceVersion: Math.max(...rows.map(([s]) => s.sourceVersion)),
        fields: rows.map(([s]) => s.field),
      };
    });
    await this.dropReadCache(edit);
    return result;
  }

  /** Best effort: the cached views expire by their TTL when Redis cannot be reached. */
  private async dropReadCache(edit: TranslationEdit): Promise<void> {
    const redis = this.deps.redis;
    if (!redis?.isReady) return;
    const key = contentReadCacheKey(this.deps.keyPrefix, edit.entityType, edit.entityId);
    await dropBound.execute(() => redis.del(key)).catch(() => undefined);
  }
}

/** Each edited field with its source row; 404 for an entity not stored under the module, 400 for bad fields. */
function checkedRows(edit: TranslationEdit, sources: readonly StoredSource[]): [StoredSource, string][] {
  if (sources.length === 0 || sources.some((s) => s.module !== edit.module)) {
    throw new AppError(
      'ENTITY_NOT_FOUND',
      `no source content is stored for ${edit.entityType} ${JSON.stringify(edit.entityId)} of module ${JSON.stringify(edit.module)}`,
      { module: edit.module, type: edit.entityType, id: edit.entityId },
    );
  }
  const byField = new Map(sources.map((s) => [s.field, s]));
  const rows: [StoredSource, string][] = [];
  const issues: { path: string; message: string }[] = [];
  for (const [field, text] of edit.fields) {
    const source = byField.get(field);
    const path = `body.fields.${field}`;
    if (!source) issues.push({ path, message: `the entity has no source field ${JSON.stringify(field)}` });
    else if (source.sourceLang === edit.targetLang) {
      issues.push({ path, message: `the field's source language is ${edit.targetLang} already` });
    } else rows.push([source, text]);
  }
  if (issues.length > 0) {
    throw new AppError('VALIDATION_FAILED', 'some fields cannot be translated by hand', { issues });
  }
  return rows;
}

/** An editor's translation of one source field, as the content store writes it. */
function humanWrite(
  edit: TranslationEdit,
  source: StoredSource,
  text: string,
  requestedAt: number,
): TranslationWrite {
  return {
    entityType: edit.entityType,
    entityId: edit.entityId,
    field: source.field,
    targetLang: edit.targetLang,
    sourceLang: source.sourceLang,
    translatedText: text,
    sourceHash: source.sourceHash,
    sourceVersion: source.sourceVersion,
    requestedAt,
    engine: HUMAN_ENGINE,
    truncated: false,
    fallback: false,
    eventId: randomUUID(),
    origin: 'human',
    writtenBy: edit.keyId,
  };
}

// Decorators applied as calls, as for every command handler (see commands/command-bus.ts).
CommandHandler(EditTranslationCommand)(EditTranslationHandler);
