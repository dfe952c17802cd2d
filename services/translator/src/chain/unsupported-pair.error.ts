import { AppError } from '@tp/runtime';

import type { Attempt } from './attempt.js';

/**
 * No engine of the chain serves this language pair, directly or through a pivot language: both
 * codes are listed, but this deployment cannot translate between them. Catalogue code
 * UNSUPPORTED_LANGUAGE_PAIR (HTTP 400): retrying will not help until an engine serving it is added.
 */
export class UnsupportedPairError extends AppError {
  constructor(
    readonly source: string,
    readonly target: string,
    readonly attempts: readonly Attempt[],
  ) {
    super(
      'UNSUPPORTED_LANGUAGE_PAIR',
      `no configured engine translates ${source} -> ${target}, directly or through another language (see GET /api/v1/translate/pairs)`,
      {
        source,
        target,
        attempts: attempts.map(({ slot, engine, outcome, reason }) => ({ slot, engine, outcome, reason })),
      },
    );
  }
}
