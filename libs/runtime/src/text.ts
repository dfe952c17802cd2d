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

/*
 * Character tests and scans for text that came from outside (request bodies, messages, engine answers).
 * They run in time linear in the text: user text never meets a backtracking regular expression with an
 * unbounded quantifier (the `tp/linear-regex` lint rule enforces it; docs/decisions.md, "Patterns on user text run in linear time").
 */

/** JavaScript's `\s`: WhiteSpace and LineTerminator of ECMAScript. */
export function isWhitespaceCode(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/** Whether the UTF-16 unit at `index` is whitespace (`\s`); false past the end. */
export const isWhitespaceAt = (text: string, index: number): boolean =>
  index < text.length && isWhitespaceCode(text.charCodeAt(index));

const LETTER = /^\p{L}$/u;
const DECIMAL_DIGIT = /^\p{Nd}$/u;

/** Whether the code point is a letter (`\p{L}`). */
export const isLetterCodePoint = (codePoint: number): boolean =>
  codePoint < 0x80
    ? (codePoint | 0x20) >= 0x61 && (codePoint | 0x20) <= 0x7a
    : LETTER.test(String.fromCodePoint(codePoint));

/** Whether the code point is a decimal digit of any script (`\p{Nd}`). */
export const isDecimalDigitCodePoint = (codePoint: number): boolean =>
  codePoint < 0x80
    ? codePoint >= 0x30 && codePoint <= 0x39
    : DECIMAL_DIGIT.test(String.fromCodePoint(codePoint));

/** UTF-16 units taken by a code point. */
export const unitsOf = (codePoint: number): number => (codePoint > 0xffff ? 2 : 1);

/** How many letters (`\p{L}`) the text has. */
export function countLetters(text: string): number {
  let letters = 0;
  for (let i = 0; i < text.length;) {
    const codePoint = text.codePointAt(i) as number;
    if (isLetterCodePoint(codePoint)) letters += 1;
    i += unitsOf(codePoint);
  }
  return letters;
}

/** Every run of whitespace replaced by one space, and the ends trimmed (`replace(/\s+/g, ' ').trim()`). */
export function collapseWhitespace(text: string): string {
  let out = '';
  let pendingSpace = false;
  let runStart = 0;
  for (let i = 0; i < text.length; i += 1) {
    if (!isWhitespaceCode(text.charCodeAt(i))) continue;
    if (i > runStart) {
      out += (pendingSpace && out !== '' ? ' ' : '') + text.slice(runStart, i);
    }
    pendingSpace = true;
    runStart = i + 1;
  }
  if (runStart < text.length) out += (pendingSpace && out !== '' ? ' ' : '') + text.slice(runStart);
  return out;
}

/** The whitespace-separated words of a text (`split(/\s+/)` without empty words). */
export function* words(text: string): Generator<string> {
  let start = -1;
  for (let i = 0; i <= text.length; i += 1) {
    const space = i === text.length || isWhitespaceCode(text.charCodeAt(i));
    if (space && start >= 0) {
      yield text.slice(start, i);
      start = -1;
    } else if (!space && start < 0) start = i;
  }
}
