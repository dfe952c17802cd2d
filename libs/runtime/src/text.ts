import { AppError } from './errors.js';

/** Characters as people count them (code points), the unit of every text limit. */
export function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/** 413 TEXT_TOO_LONG when the text has more than `max` code points. */
export function assertTextLength(text: string, max: number): void {
  // UTF-16 length >= code points, so only long text needs counting.
  if (text.length <= max) return;
  const length = codePoints(text);
  if (length > max) {
    throw new AppError('TEXT_TOO_LONG', `text has ${length} characters; at most ${max} per request`, {
      length,
      max,
    });
  }
}
