import { AppError } from '@tp/runtime';

import type { Attempt } from './attempt.js';

/**
 * Every engine of the chain failed or was skipped. Carries the catalogue code TRANSLATION_UNAVAILABLE
 * (50302, HTTP 503), which the edge maps once. `details.attempts` is public: each slot, its engine,
 * the outcome and the kind of failure (`transient`, `quota`, `unsupported`, `not configured`...), never
 * an engine's own message, which may carry hosts, account details or the text. The full attempts stay
 * on the error for logs and the admin test route.
 */
export class AllEnginesFailedError extends AppError {
  constructor(readonly attempts: readonly Attempt[]) {
    super('TRANSLATION_UNAVAILABLE', 'no translation engine could translate the text', {
      attempts: attempts.map(({ slot, engine, outcome, reason }) => ({
        slot,
        engine,
        outcome,
        ...(reason === undefined ? {} : { reason: failureKind(reason) }),
      })),
    });
  }
}

/** `transient: deepl: HTTP 500: ...` -> `transient`; `repetition loop ("…" repeated 9 times)` -> `repetition loop`. */
const failureKind = (reason: string): string => reason.split(/[:(]/)[0]?.trim() || 'failed';
