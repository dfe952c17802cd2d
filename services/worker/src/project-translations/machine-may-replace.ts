/**
 * Issue #19: when a machine result may replace the stored row, as a condition of the projection's
 * upsert (`t` the stored row, `excluded` the result), on top of the version guard. Idempotent like
 * it: a replayed or redelivered result meets the same stored row and writes nothing again.
 *
 * - A human translation is replaced only by a result of a newer source version (the text changed, so
 *   the human one is stale), and never in a language the configuration lists as human-only: a
 *   retranslation, a late result or a replayed event of the same version leaves it as it is.
 * - Of the same source version, a weaker machine result never replaces a stronger one; an equal or
 *   stronger one does (the re-request of a weak row). Weakness ranks truncated (MyMemory's
 *   500-character cut: part of the text is missing) over fallback (a weaker engine answered because a
 *   stronger one that serves the pair failed) over a whole first-choice result: 2 x truncated +
 *   fallback, so a whole fallback result replaces a truncated one, and a truncated one replaces nothing.
 */
export const MACHINE_MAY_REPLACE =
  '(t.source_version < excluded.source_version or ' +
  "(t.origin = 'machine' and " +
  '2 * excluded.truncated::int + excluded.fallback::int <= 2 * t.truncated::int + t.fallback::int)) ' +
  "and not (t.origin = 'human' and t.target_lang = any(" +
  'coalesce((select c.human_only_languages from translation_config c where c.id = 1), ' +
  "'{}'::text[])))";

/** What the stored row becomes when a machine result replaces it: the machine's, not stale. */
export const AS_MACHINE_ROW = "origin = 'machine', written_by = null, stale = false";
