import { isWhitespaceCode } from '@tp/runtime';

/**
 * Splits text into chunks an engine accepts (at most `maxChars` UTF-16 code units each) on sentence
 * boundaries. Every character, whitespace included, stays in exactly one chunk, so
 * `splitText(t, n).join('') === t` and reassembling translated chunks is a join.
 *
 * Lengths are UTF-16 code units (`string.length`): never fewer than code points, so a chunk within
 * the limit here is within any engine's "characters" limit too.
 */

/** Sentence ends that count only before whitespace or the end of text, so "3.14" and "a.b.c" stay whole. */
const SPACED_ENDS = new Set(['.', '!', '?']);
/** Sentence ends written without a following space: CJK and full-width marks, Devanagari danda, Arabic/Urdu marks. */
const UNSPACED_ENDS = new Set(['。', '！', '？', '；', '…', '．', '｡', '।', '॥', '؟', '۔']);
/** Closing quotes and brackets that belong to the sentence they end. */
const CLOSERS = new Set(['"', "'", '”', '’', '»', ')', ']', '）', '」', '』', '】', '》', '〉', '］']);
/** Clause marks for cutting an over-long sentence; the ASCII ones only count when whitespace follows ("1,000", "12:30"). */
const SPACED_CLAUSE_MARKS = new Set([',', ';', ':']);
const UNSPACED_CLAUSE_MARKS = new Set(['，', '、', '；', '：', '،', '؛']);

const isSpace = (ch: string | undefined): boolean => ch !== undefined && isWhitespaceCode(ch.charCodeAt(0));
const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;

/** Splits text into sentences; each keeps its end mark, closing quotes and the whitespace after it. */
export function splitSentences(text: string): string[] {
  const sentences: string[] = [];
  let start = 0;
  let i = 0;
  while (i < text.length) {
    const end = sentenceEndAt(text, i);
    if (end.sentenceEnd === undefined) {
      i = end.next;
      continue;
    }
    let next = end.sentenceEnd;
    while (isSpace(text[next])) next += 1;
    sentences.push(text.slice(start, next));
    start = next;
    i = next;
  }
  if (start < text.length) sentences.push(text.slice(start));
  return sentences;
}

interface EndAt {
  /** Where the sentence ending here stops (before trailing whitespace), or undefined if none ends here. */
  readonly sentenceEnd: number | undefined;
  /** Where to look next when none ends here. */
  readonly next: number;
}

/**
 * Whether a sentence ends at position `i`. A run of end marks that is not followed by whitespace ends
 * no sentence at any of its marks, so the search goes on after the run: each character is read once
 * ("a" followed by 50,000 dots and a letter is one scan, not 50,000).
 */
function sentenceEndAt(text: string, i: number): EndAt {
  const ch = text[i] as string;
  if (ch === '\n' || ch === '\r') return { sentenceEnd: i + 1, next: i + 1 };
  const spaced = SPACED_ENDS.has(ch);
  if (!spaced && !UNSPACED_ENDS.has(ch)) return { sentenceEnd: undefined, next: i + 1 };
  const ends = spaced ? SPACED_ENDS : UNSPACED_ENDS;
  let j = i + 1;
  while (j < text.length && ends.has(text[j] as string)) j += 1;
  const marksEnd = j;
  while (j < text.length && CLOSERS.has(text[j] as string)) j += 1;
  if (spaced && j < text.length && !isSpace(text[j])) return { sentenceEnd: undefined, next: marksEnd };
  return { sentenceEnd: j, next: j };
}

/**
 * Packs sentences greedily into chunks of at most `maxChars`. A sentence is cut only when it alone is
 * longer than `maxChars`: at a clause mark, else at whitespace, else at a grapheme (or at least code
 * point) boundary, so a surrogate pair is never split.
 */
export function splitText(text: string, maxChars: number): string[] {
  if (!Number.isInteger(maxChars) || maxChars < 2) {
    // Below 2 a surrogate pair could not fit in any chunk.
    throw new RangeError(`maxChars must be an integer of at least 2 (got ${maxChars})`);
  }
  if (text.length <= maxChars) return text === '' ? [] : [text];

  const pieces = splitSentences(text).flatMap((sentence) =>
    sentence.length <= maxChars ? [sentence] : cutLongSentence(sentence, maxChars),
  );
  const chunks: string[] = [];
  let current = '';
  for (const piece of pieces) {
    if (current.length + piece.length > maxChars) {
      chunks.push(current);
      current = piece;
    } else {
      current += piece;
    }
  }
  if (current !== '') chunks.push(current);
  return chunks;
}

function cutLongSentence(sentence: string, maxChars: number): string[] {
  const pieces: string[] = [];
  let rest = sentence;
  while (rest.length > maxChars) {
    const cut = cutPosition(rest, maxChars);
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  if (rest !== '') pieces.push(rest);
  return pieces;
}

/** The best place (0 < position <= maxChars) to cut a text that is longer than maxChars. */
function cutPosition(text: string, maxChars: number): number {
  const clause = lastClauseBreak(text, maxChars);
  // A clause break in the first half would leave a tiny piece; a word break near the limit is better then.
  if (clause >= maxChars / 2) return clause;
  const word = lastWordBreak(text, maxChars);
  if (word > 0) return word;
  if (clause > 0) return clause;
  return lastGraphemeBreak(text, maxChars);
}

/** Position just after the last clause mark (and its whitespace) within the first maxChars, or 0. */
function lastClauseBreak(text: string, maxChars: number): number {
  for (let i = maxChars - 1; i >= 0; i -= 1) {
    const ch = text[i] as string;
    let end = -1;
    if (UNSPACED_CLAUSE_MARKS.has(ch)) end = i + 1;
    else if (SPACED_CLAUSE_MARKS.has(ch) && isSpace(text[i + 1])) end = i + 1;
    if (end < 0) continue;
    while (end < maxChars && isSpace(text[end])) end += 1;
    return end;
  }
  return 0;
}

/** Position just after the last whitespace within the first maxChars, or 0. */
function lastWordBreak(text: string, maxChars: number): number {
  for (let i = maxChars - 1; i >= 0; i -= 1) {
    if (isSpace(text[i])) return i + 1;
  }
  return 0;
}

const graphemes = new Intl.Segmenter('und', { granularity: 'grapheme' });

/** Last grapheme boundary within the first maxChars; falls back to a code point boundary. */
function lastGraphemeBreak(text: string, maxChars: number): number {
  let last = 0;
  // A boundary depends on the characters before it and the one after, so maxChars + 1 are enough; the
  // rest of a long text is never handed to the segmenter (it would copy it on every cut).
  for (const { index } of graphemes.segment(text.slice(0, maxChars + 1))) {
    if (index > maxChars) break;
    last = index;
  }
  if (last > 0) return last;
  // One grapheme longer than maxChars (e.g. a long run of combining marks): cut between code points.
  return isHighSurrogate(text.charCodeAt(maxChars - 1)) ? maxChars - 1 : maxChars;
}
