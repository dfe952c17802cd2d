import { AppError } from '@tp/runtime';

/** What one `html` or `markdown` text may hold: beyond these it is refused, before any engine is asked. */
export const MARKUP_LIMITS = {
  /** Elements (tags opened) in the text. */
  elements: 10_000,
  /**
   * Nodes of the parsed HTML (elements, text, comments): the parser reopens unclosed formatting
   * elements in each new block, so the tree can outgrow the tags written.
   */
  nodes: 20_000,
  /** Attributes in the text, all elements together. */
  attributes: 20_000,
  /** HTML elements inside one another (browsers stop nesting at 512 too). */
  depth: 512,
  /** Markdown containers (quotes, lists) inside one another: markdown-it's own `maxNesting`. */
  nesting: 100,
  /** Lines of a Markdown text: markdown-it is slowest per character on long lists. */
  lines: 5_000,
  /** `[` in a Markdown text: each may open a link label that markdown-it reads ahead. */
  brackets: 2_000,
  /** `*`, `_` and `~` in a Markdown text: each run is a delimiter markdown-it pairs up. */
  delimiters: 5_000,
} as const;

export type MarkupLimit = keyof typeof MARKUP_LIMITS;

const DESCRIBED: Readonly<Record<MarkupLimit, string>> = {
  elements: 'elements',
  attributes: 'attributes',
  nodes: 'nodes once parsed',
  depth: 'elements inside one another',
  nesting: 'quotes or lists inside one another',
  lines: 'lines',
  brackets: 'square brackets',
  delimiters: 'emphasis marks (*, _, ~)',
};

/**
 * A text whose markup passes a limit (MARKUP_TOO_COMPLEX, 400): refused as a whole, since a
 * document cannot be translated in part. Parsing such markup would cost more than its size
 * suggests (the HTML parser checks scopes down the stack of open elements on each tag).
 */
export class MarkupTooComplexError extends AppError {
  constructor(readonly limit: MarkupLimit) {
    super(
      'MARKUP_TOO_COMPLEX',
      `the markup has more ${DESCRIBED[limit]} than one text may (at most ${MARKUP_LIMITS[limit]})`,
      { limit, max: MARKUP_LIMITS[limit] },
    );
  }
}
