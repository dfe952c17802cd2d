import { randomUUID } from 'node:crypto';

import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { Orm } from '@tp/db';
import { contentReadCacheKey } from '@tp/pipeline';
import { bounded, type RedisClient } from '@tp/redis';
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

interface SourceRow {
  readonly module: string;
  readonly field: string;
  readonly source_lang: string;
  readonly source_hash: string;
  readonly source_version: string | number;
}

/** The `engine` column of a human translation (the read meta shows no engine for it). */
export const HUMAN_ENGINE = 'human';

/**
 * Stores human translations of the entity's current source fields, in one transaction that holds the
 * source rows (FOR SHARE) so the planner cannot change them in between: each row is the current
 * text's translation, origin `human`, written by the key, not stale. A human row replaces any row;
 * the projection never replaces it with a machine result of the same source version
 * (worker project-translations/machine-may-replace.ts). The entity's read cache is dropped after.
 */
export class EditTranslationHandler implements ICommandHandler<EditTranslationCommand> {
  constructor(private readonly deps: EditTranslationDeps) {}

  async execute({ edit }: EditTranslationCommand): Promise<TranslationEdited> {
    const result = await this.deps.orm.em.fork().transactional(async (em) => {
      const sources = await em.execute<SourceRow[]>(
        'select module, field, source_lang, source_hash, source_version from source_contents ' +
          'where entity_type = ? and entity_id = ? for share',
        [edit.entityType, edit.entityId],
      );
      const rows = checkedRows(edit, sources);
      const params: unknown[] = [];
      const requestedAt = Date.now();
      for (const [source, text] of rows) {
        params.push(edit.entityType, edit.entityId, source.field, edit.targetLang, source.source_lang, text);
        params.push(source.source_hash, source.source_version, requestedAt, HUMAN_ENGINE, randomUUID());
        params.push(edit.keyId);
      }
      await em.execute(
        'insert into content_translations as t (entity_type, entity_id, field, target_lang, source_lang, ' +
          'translated_text, source_hash, source_version, requested_at, engine, last_event_id, written_by, ' +
          'truncated, origin, stale, created_at, updated_at) values ' +
          rows
            .map(() => "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, false, 'human', false, now(), now())")
            .join(', ') +
          ' on conflict (entity_type, entity_id, field, target_lang) do update set ' +
          'source_lang = excluded.source_lang, translated_text = excluded.translated_text, ' +
          'source_hash = excluded.source_hash, source_version = excluded.source_version, ' +
          'requested_at = excluded.requested_at, engine = excluded.engine, truncated = false, fallback = false, ' +
          "last_event_id = excluded.last_event_id, written_by = excluded.written_by, origin = 'human', " +
          'stale = false, updated_at = excluded.updated_at',
        params,
        'run',
      );
      return {
        sourceVersion: Math.max(...rows.map(([s]) => Number(s.source_version))),
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
    await bounded(redis.del(key), 250).catch(() => undefined);
  }
}

/** Each edited field with its source row; 404 for an entity not stored under the module, 400 for bad fields. */
function checkedRows(edit: TranslationEdit, sources: readonly SourceRow[]): [SourceRow, string][] {
  if (sources.length === 0 || sources.some((s) => s.module !== edit.module)) {
    throw new AppError(
      'ENTITY_NOT_FOUND',
      `no source content is stored for ${edit.entityType} ${JSON.stringify(edit.entityId)} of module ${JSON.stringify(edit.module)}`,
      { module: edit.module, type: edit.entityType, id: edit.entityId },
    );
  }
  const byField = new Map(sources.map((s) => [s.field, s]));
  const rows: [SourceRow, string][] = [];
  const issues: { path: string; message: string }[] = [];
  for (const [field, text] of edit.fields) {
    const source = byField.get(field);
    const path = `body.fields.${field}`;
    if (!source) issues.push({ path, message: `the entity has no source field ${JSON.stringify(field)}` });
    else if (source.source_lang === edit.targetLang) {
      issues.push({ path, message: `the field's source language is ${edit.targetLang} already` });
    } else rows.push([source, text]);
  }
  if (issues.length > 0) {
    throw new AppError('VALIDATION_FAILED', 'some fields cannot be translated by hand', { issues });
  }
  return rows;
}

// Decorators applied as calls, as for every command handler (see commands/command-bus.ts).
CommandHandler(EditTranslationCommand)(EditTranslationHandler);
