/**
 * One stored source field of an entity: a source_contents row, as every producer of translation
 * requests and the query side read it. Readers that need less take a Pick of it.
 */
export interface StoredField {
  readonly module: string;
  readonly entityType: string;
  readonly entityId: string;
  readonly field: string;
  /** A code of the language list. */
  readonly sourceLang: string;
  readonly text: string;
  /** sourceHash(text). */
  readonly sourceHash: string;
  /** The entity's version in the business system when this text was reported. */
  readonly sourceVersion: number;
  /** How the text is written: `text` (also when absent), `html` or `markdown`. */
  readonly format?: string;
}

/**
 * Longest values the source_contents and content_translations columns take, in characters (code
 * points, as Postgres counts varchar(n)). Whatever is checked before it is stored is checked against
 * these.
 */
export const CONTENT_COLUMN_CHARS = {
  module: 100,
  entityType: 100,
  entityId: 200,
  field: 100,
  /** source_lang and target_lang. */
  lang: 20,
  sourceHash: 64,
  engine: 50,
} as const;
