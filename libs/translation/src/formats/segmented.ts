/**
 * A text cut into what is to be translated, and how to put the translations back. Each segment is
 * the words of one block (or one translatable attribute) with its inline markup as placeholders
 * (inline-segment.ts); for plain text the one segment is the text itself.
 */
export interface Segmented {
  readonly segments: readonly string[];
  /** The text with each segment replaced by its translation (same order, one per segment). */
  reassemble(translations: readonly string[]): string;
}
