import { describe, expect, it } from '@jest/globals';
import { PermanentError } from '@tp/pipeline';
import { AppError } from '@tp/runtime';

import { AllEnginesFailedError } from '../chain/index.js';
import { failureReasons, requestRejection } from './translation-failure.js';

describe('translation failures in the engine consumer', () => {
  it('treats a refused request (4xx) as permanent, with its code and the attempt it happened on', () => {
    const rejection = requestRejection(new AppError('UNSUPPORTED_LANGUAGE', 'source: unsupported'), 2);
    expect(rejection).toBeInstanceOf(PermanentError);
    expect(rejection).toMatchObject({ code: 'UNSUPPORTED_LANGUAGE', attempts: 2 });
    expect(requestRejection(new AppError('TEXT_TOO_LONG', 'too long'), 1)?.code).toBe('TEXT_TOO_LONG');
  });

  it('leaves engine failures and unexpected errors to the retries', () => {
    expect(requestRejection(new AllEnginesFailedError([]), 1)).toBeUndefined();
    expect(requestRejection(new Error('socket hang up'), 1)).toBeUndefined();
  });

  it('names what each engine that ran said, and leaves out the slots with no engine', () => {
    const err = new AllEnginesFailedError([
      { slot: 'primary', outcome: 'skipped', ms: 0 },
      { slot: 'fallback', engine: 'mymemory', outcome: 'breaker-open', ms: 0 },
      { slot: 'local', engine: 'libretranslate', outcome: 'failed', reason: 'status 503', ms: 12 },
    ]);
    expect(failureReasons(err)).toBe(
      'fallback (mymemory): breaker-open; local (libretranslate): failed status 503',
    );
    expect(failureReasons(new AllEnginesFailedError([{ slot: 'primary', outcome: 'skipped', ms: 0 }]))).toBe(
      'no translation engine is configured',
    );
    expect(failureReasons(new Error('timeout'))).toBe('timeout');
  });
});
