import { PermanentError } from '@tp/pipeline';
import { AppError } from '@tp/runtime';

import { AllEnginesFailedError } from '../chain/index.js';

/**
 * A failure that no retry can fix: the use case refused the request itself (a 4xx code such as
 * UNSUPPORTED_LANGUAGE or TEXT_TOO_LONG, or an `auto` source nobody could detect). Undefined for
 * everything else (engines down, quota, timeouts), which is worth another attempt.
 */
export function requestRejection(err: unknown, attempt: number): PermanentError | undefined {
  if (err instanceof AppError && err.httpStatus < 500) {
    return new PermanentError(err.code, err.message, attempt);
  }
  return undefined;
}

/** What each engine that ran said, for logs and the dead letter: `local (libretranslate): failed 503 ...`. */
export function failureReasons(err: unknown): string {
  if (!(err instanceof AllEnginesFailedError)) return err instanceof Error ? err.message : String(err);
  const ran = err.attempts.filter((attempt) => attempt.outcome !== 'skipped');
  if (ran.length === 0) return 'no translation engine is configured';
  return ran
    .map(({ slot, engine, outcome, reason }) =>
      [`${slot}${engine ? ` (${engine})` : ''}:`, outcome, reason].filter(Boolean).join(' '),
    )
    .join('; ');
}
