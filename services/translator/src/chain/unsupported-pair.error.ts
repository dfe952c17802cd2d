import { AppError } from '@tp/runtime';

import type { Attempt } from './attempt.js';

/**
 * No engine of the chain serves this language pair, directly or through a pivot language (or no
 * engine is configured at all): both codes are listed, but this deployment cannot translate between
 * them. Catalogue code UNSUPPORTED_LANGUAGE_PAIR (HTTP 400): retrying will not help until an engine
 * serving it is added; `remedies` name what would (the deployment's own, see ChainOptions.remedies).
 */
export class UnsupportedPairError extends AppError {
  constructor(
    readonly source: string,
    readonly target: string,
    readonly attempts: readonly Attempt[],
    readonly remedies: readonly string[] = [],
  ) {
    super('UNSUPPORTED_LANGUAGE_PAIR', unsupportedPairMessage(source, target, remedies), {
      source,
      target,
      remedies,
      attempts: attempts.map(({ slot, engine, outcome, reason }) => ({ slot, engine, outcome, reason })),
    });
  }
}

/** `zh-CN -> en: no installed engine serves this pair …; to add one: a, or b. Retrying will not help.` */
export function unsupportedPairMessage(source: string, target: string, remedies: readonly string[]): string {
  const add = remedies.length > 0 ? `; to translate it: ${remedies.join(', or ')}` : '';
  return `${source} -> ${target}: no installed engine serves this pair, directly or through another language (GET /api/v1/translate/pairs lists those served)${add}. Retrying will not help.`;
}
