import { LockMode } from '@mikro-orm/core';
import { TranslationConfig, type Orm } from '@tp/db';
import { configuredTargets, endBackfills, startConfigBackfills } from '@tp/pipeline';
import { AppError } from '@tp/runtime';

import type { TranslationConfigChange, TranslationConfigView } from './translation-config.js';

/** The singleton row's id. */
export const TRANSLATION_CONFIG_ID = 1;

/**
 * The translation_config row. No copy is kept here: the planner reads the row in the transaction of
 * every ContentChanged (docs/pipeline.md), so an update applies to the next message everywhere.
 */
export class TranslationConfigStore {
  constructor(private readonly orm: Orm) {}

  async read(): Promise<TranslationConfigView> {
    const row = await this.orm.em.fork().findOne(TranslationConfig, { id: TRANSLATION_CONFIG_ID });
    if (!row) throw missingRow();
    return view(row);
  }

  /**
   * Applies a change under a row lock and bumps the revision, so concurrent updates never share one.
   * A target language added starts its backfill, one removed stops it, in the same transaction.
   */
  async update(change: TranslationConfigChange): Promise<TranslationConfigView> {
    return this.orm.em.fork().transactional(async (em) => {
      const row = await em.findOne(
        TranslationConfig,
        { id: TRANSLATION_CONFIG_ID },
        { lockMode: LockMode.PESSIMISTIC_WRITE },
      );
      if (!row) throw missingRow();
      const before = configuredTargets(row.targetLanguages);
      em.assign(row, {
        ...(change.target_languages && { targetLanguages: [...change.target_languages] }),
        ...(change.enabled !== undefined && { enabled: change.enabled }),
        ...(change.human_only && { humanOnlyLanguages: [...change.human_only] }),
        revision: row.revision + 1,
      });
      await em.flush();
      const after = configuredTargets(row.targetLanguages);
      await startConfigBackfills(
        em,
        after.filter((lang) => !before.includes(lang)),
      );
      await endBackfills(em, 'stopped', { languagesKept: after });
      return view(row);
    });
  }
}

export function view(row: TranslationConfig): TranslationConfigView {
  return {
    target_languages: [...row.targetLanguages],
    enabled: row.enabled,
    human_only: [...row.humanOnlyLanguages],
    revision: row.revision,
    updated_at: row.updatedAt.toISOString(),
  };
}

export const missingRow = () =>
  new AppError('INTERNAL', 'the translation_config row (id 1) is missing: run the database migrations');
