/**
 * MyMemory accepts at most 500 bytes of UTF-8 per request, and the spec caps a call at 500 characters.
 * The byte cap alone would imply the character cap (a character is at least one byte); both are
 * checked so either limit can change on its own.
 */

import { codePoints } from '@tp/runtime';

export const MYMEMORY_MAX_BYTES = 500;
export const MYMEMORY_MAX_CHARS = 500;

/** How much of the cut-off text we are willing to give up to end on a sentence or word boundary. */
const BOUNDARY_WINDOW = 0.2;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const encoder = new TextEncoder();

export interface Truncation {
  readonly text: string;
  readonly truncated: boolean;
}

/**
 * Cuts `text` to the limits on a grapheme boundary (never inside a character or an emoji sequence),
 * preferring the end of the last sentence, then the last whitespace, when one lies close to the cut.
 */
export function truncateForMyMemory(
  text: string,
  maxBytes = MYMEMORY_MAX_BYTES,
  maxChars = MYMEMORY_MAX_CHARS,
): Truncation {
  const end = hardCut(text, maxBytes, maxChars);
  if (end === text.length) return { text, truncated: false };
  const head = text.slice(0, end);
  const soft = softCut(head);
  return { text: (soft ?? head).trimEnd(), truncated: true };
}

/** Length (in UTF-16 units) of the longest prefix within both limits that ends on a grapheme boundary. */
function hardCut(text: string, maxBytes: number, maxChars: number): number {
  let bytes = 0;
  let chars = 0;
  let end = 0;
  for (const { segment, index } of graphemes.segment(text)) {
    bytes += encoder.encode(segment).length;
    chars += codePoints(segment);
    if (bytes > maxBytes || chars > maxChars) {
      // A single grapheme over the limit (a pathological combining sequence): cut between code points.
      return end > 0 ? end : codePointCut(text, maxBytes, maxChars);
    }
    end = index + segment.length;
  }
  return end;
}

function codePointCut(text: string, maxBytes: number, maxChars: number): number {
  let bytes = 0;
  let chars = 0;
  let end = 0;
  for (const char of text) {
    bytes += encoder.encode(char).length;
    chars += 1;
    if (bytes > maxBytes || chars > maxChars) break;
    end += char.length;
  }
  return end;
}

// At most 8 closing quotes or brackets after a sentence mark: a bounded quantifier keeps this linear.
const SENTENCE_END = /[.!?…。！？]["'”’)\]」』）]{0,8}(?=\s|$)|[。！？]/gu;
const WORD_BREAK = /[\s、，；,;]/gu;

/** The head shortened to its last sentence end, or else its last word break, within the window. */
function softCut(head: string): string | undefined {
  const earliest = Math.floor(head.length * (1 - BOUNDARY_WINDOW));
  const sentence = lastMatchEnd(head, SENTENCE_END);
  if (sentence !== undefined && sentence >= earliest) return head.slice(0, sentence);
  const word = lastMatchEnd(head, WORD_BREAK);
  if (word !== undefined && word >= earliest) return head.slice(0, word);
  return undefined;
}

function lastMatchEnd(text: string, pattern: RegExp): number | undefined {
  let end: number | undefined;
  for (const match of text.matchAll(pattern)) end = match.index + match[0].length;
  return end;
}
