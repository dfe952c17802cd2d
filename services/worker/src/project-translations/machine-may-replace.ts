/**
 * Issue #19: when a machine result may replace the stored row, as a condition of the projection's
 * upsert (`t` the stored row, `excluded` the result), on top of the version guard. Idempotent like
 * it: a replayed or redelivered result meets the same stored row and writes nothing again.
 *
 * - A human translation is replaced only by a result of a newer source version (the text changed, so
 *   the human one is stale), and never in a language the configuration lists as human-only: a
 *   retranslation, a late result or a replayed event of the same version leaves it as it is.
 * - A truncated result (MyMemory's 500-character cut) never replaces a whole translation of the same
 *   source version; a whole one replaces a truncated one (the re-request of a weak row).
 */
export const MACHINE_MAY_REPLACE =
  '(t.source_version < excluded.source_version or ' +
  "(t.origin = 'machine' and (t.truncated or not excluded.truncated))) " +
  "and not (t.origin = 'human' and t.target_lang = any(" +
  'coalesce((select c.human_only_languages from translation_config c where c.id = 1), ' +
  "'{}'::text[])))";

/** What the stored row becomes when a machine result replaces it: the machine's, not stale. */
export const AS_MACHINE_ROW = "origin = 'machine', written_by = null, stale = false";
