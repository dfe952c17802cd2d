import {
  ASTRAL_CACHE_LIMIT,
  CLASS,
  LEET,
  LEET_INSIDE_ONLY,
  classOf,
  isDroppedMark,
  isVowelOrFinalJamo,
  lookAlike,
} from './char-tables.js';

/** A text folded for matching, with the way back to the original text. */
export interface NormalisedText {
  /** What terms are matched against: folded, with look-alikes and leetspeak read as letters. */
  readonly text: string;
  /** For each UTF-16 index i of `text`: the original range [starts[i], ends[i]) it came from. */
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  /** 1 where a unit is a digit read as a letter (`a55` -> `ass`). */
  readonly fromDigit: Uint8Array;
}

const SPACE = 0x20;

/** ASCII folded on its own: upper case lowered, white space and controls made a space. */
const ASCII_FOLDED = Uint16Array.from({ length: 128 }, (_, code) => {
  if (code < 0x20 || code === 0x7f) return SPACE;
  if (code >= 0x41 && code <= 0x5a) return code + 0x20;
  return code;
});

// Dense from the start: writing far indices into an empty array would turn it into a slow dictionary.
const foldedBmp = new Array<string | undefined>(0x10000).fill(undefined);
const foldedAstral = new Map<number, string>();

/**
 * NFKC, lower case (with the few full case foldings toLowerCase lacks), invisible characters and
 * leftover decoration marks removed, white space as one space, look-alike letters as Latin. A mark
 * still on a Latin, Greek or Cyrillic letter after NFKC, or on a digit or symbol leetspeak reads as
 * a letter, is decoration too (a Thai vowel sign put on the `k` of a term, or on the `1` of `sh1t`):
 * left there, it would make the letter a cluster no term matches. So is a mark on white space or on
 * no visible character (after a zero-width space): it would join the letter before it in the
 * output, or stand as a letter before the next word. Hangul jamo stay: they are letters.
 */
function fold(cluster: string): string {
  let out = '';
  let dropsMarks = true;
  for (const ch of cluster.normalize('NFKC').toLowerCase()) {
    const codePoint = ch.codePointAt(0) as number;
    const bits = classOf(codePoint);
    if (bits & CLASS.invisible || isDroppedMark(codePoint)) continue;
    if (bits & CLASS.joins) {
      if (dropsMarks && !isVowelOrFinalJamo(codePoint)) continue;
    } else dropsMarks = (bits & (CLASS.alphabet | CLASS.space)) !== 0 || LEET.has(codePoint);
    if (bits & CLASS.space) out += ' ';
    else out += lookAlike(codePoint) ?? ch;
  }
  return out;
}

/** A single code point folds the same way every time, so its result is kept (one entry per code point). */
function foldCodePoint(codePoint: number): string {
  if (codePoint < 0x10000) {
    let folded = foldedBmp[codePoint];
    if (folded === undefined) {
      folded = fold(String.fromCharCode(codePoint));
      foldedBmp[codePoint] = folded;
    }
    return folded;
  }
  let folded = foldedAstral.get(codePoint);
  if (folded === undefined) {
    folded = fold(String.fromCodePoint(codePoint));
    if (foldedAstral.size < ASTRAL_CACHE_LIMIT) foldedAstral.set(codePoint, folded);
  }
  return folded;
}

const width = (codePoint: number) => (codePoint > 0xffff ? 2 : 1);

/**
 * Combining marks kept after a character: the 30 non-starters in a row of Unicode's Stream-Safe Text
 * Format (UAX #15), which real text stays within. NFKC reorders a run of marks in time quadratic in
 * its length, and marks past the limit carry nothing a term could match, so they are dropped before
 * NFKC; the character's original range still covers them.
 */
const MAX_MARKS = 30;

/**
 * The output under construction, in typed arrays sized from the input: this runs on every request,
 * and a few large allocations instead of three growing arrays keep garbage collection out of the
 * latency tail.
 */
class Builder {
  units: Uint16Array;
  starts: Int32Array;
  ends: Int32Array;
  length = 0;

  constructor(capacity: number) {
    this.units = new Uint16Array(capacity);
    this.starts = new Int32Array(capacity);
    this.ends = new Int32Array(capacity);
  }

  /** Appends one unit that original[from, to) folded to; a space after a space widens that one instead. */
  push(unit: number, from: number, to: number): void {
    const last = this.length - 1;
    if (unit === SPACE && (last < 0 || this.units[last] === SPACE)) {
      if (last >= 0) this.ends[last] = to;
      return;
    }
    if (this.length === this.units.length) this.grow();
    this.units[this.length] = unit;
    this.starts[this.length] = from;
    this.ends[this.length] = to;
    this.length += 1;
  }

  pushPiece(piece: string, from: number, to: number): void {
    for (let k = 0; k < piece.length; k++) this.push(piece.charCodeAt(k), from, to);
  }

  /** NFKC can expand a character up to 18 units (U+FDFA), so the first guess may fall short. */
  private grow(): void {
    const capacity = this.units.length * 2 + 16;
    const units = new Uint16Array(capacity);
    const starts = new Int32Array(capacity);
    const ends = new Int32Array(capacity);
    units.set(this.units);
    starts.set(this.starts);
    ends.set(this.ends);
    this.units = units;
    this.starts = starts;
    this.ends = ends;
  }
}

/**
 * Folds `input` for matching and keeps, for every UTF-16 unit of the result, the range of the
 * original it came from. A character and the combining marks after it fold together (NFKC composes
 * them), so a match never splits one: its span covers the whole of each character it touches.
 */
export function normalise(input: string): NormalisedText {
  const out = new Builder(input.length + 16);
  const length = input.length;
  let i = 0;
  while (i < length) {
    const unit = input.charCodeAt(i);
    if (unit < 0x80) {
      const next = i + 1 < length ? (input.codePointAt(i + 1) as number) : 0;
      if (next < 0x300 || !(classOf(next) & CLASS.joins)) {
        out.push(ASCII_FOLDED[unit] as number, i, i + 1);
        i += 1;
        continue;
      }
    }
    const codePoint = input.codePointAt(i) as number;
    let end = i + width(codePoint);
    let kept = end;
    for (let marks = 0; end < length; marks++) {
      const following = input.codePointAt(end) as number;
      if (!(classOf(following) & CLASS.joins)) break;
      end += width(following);
      if (marks < MAX_MARKS) kept = end;
    }
    const single = end === i + width(codePoint);
    out.pushPiece(single ? foldCodePoint(codePoint) : fold(input.slice(i, kept)), i, end);
    i = end;
  }
  const units = out.units.subarray(0, out.length);
  const fromDigit = readLeetspeak(units);
  return {
    text: fromCharCodes(units),
    starts: out.starts.subarray(0, out.length),
    ends: out.ends.subarray(0, out.length),
    fromDigit,
  };
}

const isToken = (unit: number) => LEET.has(unit) || (classOf(unit) & CLASS.token) !== 0;

/**
 * Reads digits and symbols as letters inside tokens that have a letter (`sh1t`, `a$$`, `@ss`), in
 * place; plain numbers stay. `!` and `|` after the token's last letter or digit are punctuation.
 * Returns which units were digits.
 */
function readLeetspeak(units: Uint16Array): Uint8Array {
  const fromDigit = new Uint8Array(units.length);
  let start = 0;
  while (start < units.length) {
    if (!isToken(units[start] as number)) {
      start += 1;
      continue;
    }
    let end = start;
    let hasLetter = false;
    let lastWordUnit = -1;
    for (; end < units.length && isToken(units[end] as number); end++) {
      const bits = classOf(units[end] as number);
      if (bits & CLASS.letter) hasLetter = true;
      if (bits & CLASS.token) lastWordUnit = end;
    }
    if (hasLetter) {
      for (let k = start; k < end; k++) {
        const unit = units[k] as number;
        const letter = LEET.get(unit);
        if (letter === undefined || (LEET_INSIDE_ONLY.has(unit) && k > lastWordUnit)) continue;
        if (unit >= 0x30 && unit <= 0x39) fromDigit[k] = 1;
        units[k] = letter;
      }
    }
    start = end;
  }
  return fromDigit;
}

/** In chunks: one call with a very long argument list would overflow the stack. */
function fromCharCodes(units: Uint16Array): string {
  let text = '';
  for (let k = 0; k < units.length; k += 8192) {
    text += String.fromCharCode.apply(null, units.subarray(k, k + 8192) as unknown as number[]);
  }
  return text;
}

/** The original range of normalised units [start, end). */
export function originalRange(normalised: NormalisedText, start: number, end: number): [number, number] {
  return [normalised.starts[start] as number, normalised.ends[end - 1] as number];
}

/** A term folded as texts are, without outer spaces; empty when nothing matchable is left. */
export function normaliseTerm(term: string): string {
  return normalise(term).text.trim();
}
