import { AppError } from '@tp/runtime';

import type { Attempt } from './chain.js';

/**
 * Every engine of the chain failed or was skipped. Carries the catalogue code TRANSLATION_UNAVAILABLE
 * (50302, HTTP 503), which the edge maps once; `details.attempts` says what happened to each engine.
 */
export class AllEnginesFailedError extends AppError {
  constructor(readonly attempts: readonly Attempt[]) {
    super('TRANSLATION_UNAVAILABLE', 'no translation engine could translate the text', {
      attempts: attempts.map(({ slot, engine, outcome, reason }) => ({ slot, engine, outcome, reason })),
    });
  }
}
