import { z } from 'zod';

export interface CodePointStringOptions {
  /** The refusal's message (default zod's). */
  readonly message?: string;
  /**
   * false: the document states the limit, and the handler or the service behind enforces it itself
   * (413 TEXT_TOO_LONG through assertTextLength, a limit that depends on the key, the nli service).
   */
  readonly check?: boolean;
}

/**
 * A string of at most `max` characters, counted as code points as every length limit of a request
 * is (so Chinese and emoji count once; docs/decisions.md), with `maxLength: max` in the OpenAPI
 * document, which JSON Schema counts in code points too. zod (4.6) measures strings in code points
 * for `.max` (v4/core/checks.js, `$ZodCheckMaxLength`); text-schema.unit.test.ts holds it to that,
 * so a zod that counts UTF-16 units again fails there, not in production. A refusal is a `too_big`
 * issue (400 VALIDATION_FAILED). Chain `.trim()` and `.min()` after it.
 */
export function codePointString(max: number, options: CodePointStringOptions = {}) {
  if (options.check === false) return z.string().meta({ maxLength: max });
  return z.string().max(max, options.message === undefined ? undefined : { message: options.message });
}
