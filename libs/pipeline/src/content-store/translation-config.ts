import type { Em } from './em.js';

/** The translation_config row, as the planner and the read side use it. */
export interface TranslationSettings {
  readonly targetLanguages: readonly string[];
  readonly enabled: boolean;
  /** Languages whose human translations are never replaced by a machine one. */
  readonly humanOnlyLanguages: readonly string[];
}

export interface SettingsRead {
  /**
   * With a share lock: while a change holds the row, the read waits for it and gets the changed row.
   * The planner reads so: a transaction of its that began after a backfill was created (in the
   * change's transaction) plans with the backfill's language (see stepBackfill). Nothing else needs
   * to wait, and a reader that holds other locks must not (the backfill runner holds its backfills,
   * which a change that removes a language updates).
   */
  readonly waitForChange?: boolean;
}

/** The configuration as of now (in the caller's transaction, when it has one). */
export async function readTranslationSettings(
  em: Em,
  { waitForChange = false }: SettingsRead = {},
): Promise<TranslationSettings> {
  const [row] = await em.execute<
    { target_languages: string[]; enabled: boolean; human_only_languages: string[] }[]
  >(
    'select target_languages, enabled, human_only_languages from translation_config where id = 1' +
      (waitForChange ? ' for share' : ''),
  );
  if (!row) throw new Error('translation_config has no row 1; run the migrations');
  return {
    targetLanguages: row.target_languages,
    enabled: row.enabled,
    humanOnlyLanguages: row.human_only_languages,
  };
}
