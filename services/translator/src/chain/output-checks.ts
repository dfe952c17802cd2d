import { codePoints, collapseWhitespace, countLetters, unitsOf, words as wordsOf } from '@tp/runtime';

/**
 * Sanity checks on one engine answer. A failed check counts as that engine's failure, so the chain
 * tries the next engine instead of returning (and caching) garbage.
 */

export interface OutputCheckInput {
  /** The text sent to the engine (masked, one chunk). */
  readonly input: string;
  /** What the engine returned for it. */
  readonly output: string;
  /** Source language code, or `auto` when unknown (the unchanged check is then skipped). */
  readonly source: string;
  readonly target: string;
  /** Words of the input the engine did not know, when it says (Apertium marks them). */
  readonly unknownWords?: number;
}

/** Stable reason for an unchanged answer; the chain treats it specially (see chain.ts). */
export const UNCHANGED = 'unchanged from input';

/**
 * Output this many times longer than the input (plus a little slack for very short inputs) is a
 * runaway. Real expansion stays well below: CJK to Latin or Cyrillic scripts is about 3-4x.
 */
const MAX_GROWTH = 6;
const GROWTH_SLACK = 64;

/** A loop is a unit of up to MAX_PERIOD code points repeated at least MIN_REPEATS times back to back… */
const MAX_PERIOD = 32;
const MIN_REPEATS = 6;
/** …covering at least this many code points ("!!!!!!" is emphasis, not a loop)… */
const MIN_LOOP_LENGTH = 24;
/** …and more than twice as often as the input repeats anything ("哈哈哈哈…" may become "hahaha…"). */
const INPUT_REPEAT_FACTOR = 2;

/**
 * Scripts written without spaces between words. There a text needs translating from this many letters
 * on; elsewhere from two words with letters. Below that, an unchanged answer is accepted: numbers,
 * codes, single names and brands ("Berlin", "iPhone", "東京") legitimately come back as they were.
 */
const UNSPACED_SCRIPT =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/gu;
const MIN_UNSPACED_LETTERS = 5;
const MIN_WORDS = 2;

/** Returns why the output is unusable, or undefined when it passes. */
export function checkOutput(check: OutputCheckInput): string | undefined {
  const { input, output } = check;
  if (output.trim() === '' && input.trim() !== '') return 'empty output';

  const loop = longestRepeat(output, MIN_LOOP_LENGTH);
  if (loop && loop.count >= MIN_REPEATS) {
    const inputRepeats = longestRepeat(input, 0)?.count ?? 1;
    if (loop.count > INPUT_REPEAT_FACTOR * inputRepeats) {
      return `repetition loop (${JSON.stringify(loop.unit)} repeated ${loop.count} times)`;
    }
  }

  const inputLength = codePoints(input);
  const outputLength = codePoints(output);
  if (outputLength > MAX_GROWTH * inputLength + GROWTH_SLACK) {
    return `output ${Math.round(outputLength / Math.max(inputLength, 1))} times longer than input`;
  }

  if (languagesDiffer(check.source, check.target)) {
    const words = translatableWords(input);
    if (needsTranslation(input, words) && !recognised(words, check.unknownWords)) {
      if (comparable(output) === comparable(input)) return UNCHANGED;
    }
  }
  return undefined;
}

/**
 * The engine read the text as its source language: it says how many words it did not know, and
 * that is fewer than half of them. An answer identical to such a text is its translation: close
 * languages share sentences (Apertium leaves es "Inutiliza salvar limas a disco" as it is in pt,
 * knowing every word but "limas"), while an engine that echoes text it cannot read marks most of it
 * unknown. Engines that give no count (DeepL, Google...) are not taken at their word.
 */
function recognised(words: number, unknownWords: number | undefined): boolean {
  return unknownWords !== undefined && unknownWords * 2 < words;
}

const primary = (code: string): string => code.toLowerCase().split(/[-_]/)[0] ?? '';

/** zh-CN to zh-TW or pt to pt-BR may legitimately leave text as it was, and `auto` could be anything. */
function languagesDiffer(source: string, target: string): boolean {
  return source !== 'auto' && primary(source) !== primary(target);
}

/** Words with at least one letter. */
function translatableWords(text: string): number {
  let words = 0;
  for (const word of wordsOf(text)) if (countLetters(word) > 0) words += 1;
  return words;
}

function needsTranslation(text: string, words: number): boolean {
  const unspaced = text.match(UNSPACED_SCRIPT)?.length ?? 0;
  return words >= MIN_WORDS || unspaced >= MIN_UNSPACED_LETTERS;
}

/** Case, spacing and Unicode normalisation differences do not make a translation. */
const comparable = (text: string): string => collapseWhitespace(text.normalize('NFC')).toLowerCase();

interface Repeat {
  readonly unit: string;
  readonly count: number;
}

/**
 * The most-repeated unit (1 to MAX_PERIOD code points, not only whitespace) among back-to-back
 * repetitions covering at least minLength code points. One pass per period: a run of positions
 * equal to the one `period` earlier is a periodic stretch of text.
 */
export function longestRepeat(text: string, minLength: number): Repeat | undefined {
  // Code points in a typed array: the period scans compare numbers, not one-character strings.
  const chars = codePointArray(text);
  // The loops touch only numbers (no object, no string, `.length` read once): in jest's realm, which
  // shares the outer realm's typed arrays, anything else kept V8 from optimising them (300 ms, not 3).
  const length = chars.length;
  let bestCount = 0;
  let bestFrom = -1;
  let bestPeriod = 0;
  for (let period = 1; period <= Math.min(MAX_PERIOD, length >> 1); period += 1) {
    let run = 0;
    for (let i = period; i <= length; i += 1) {
      if (i < length && chars[i] === chars[i - period]) {
        run += 1;
        continue;
      }
      const covered = run + period;
      const count = (covered / period) | 0;
      if (run > 0 && count >= 2 && covered >= minLength && count > bestCount) {
        if (unitAt(chars, i - covered, period).trim() !== '') {
          bestCount = count;
          bestFrom = i - covered;
          bestPeriod = period;
        }
      }
      run = 0;
    }
  }
  return bestFrom < 0 ? undefined : { unit: unitAt(chars, bestFrom, bestPeriod), count: bestCount };
}

function unitAt(chars: Uint32Array, from: number, period: number): string {
  let unit = '';
  for (let k = from; k < from + period; k += 1) unit += String.fromCodePoint(chars[k] as number);
  return unit;
}

/** The text's code points, filled by a plain loop (`Uint32Array.from` of a generator costs ten times more). */
function codePointArray(text: string): Uint32Array {
  const chars = new Uint32Array(text.length);
  let length = 0;
  for (let i = 0; i < text.length; length += 1) {
    const codePoint = text.codePointAt(i) as number;
    chars[length] = codePoint;
    i += unitsOf(codePoint);
  }
  return chars.subarray(0, length);
}
