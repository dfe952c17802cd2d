/**
 * Masks what an engine must not translate (placeholders, URLs, e-mail addresses, HTML tags and
 * character references) before the call, and puts it back after.
 *
 * Token format: `⟦n⟧` (U+27E6 n U+27E7), n = the span's index. Why this and not `<x id="0"/>`:
 * - no letters, so there is nothing to translate, transliterate or change the case of;
 * - not markup: the adapters send plain text, and engines in plain-text mode may escape, reorder or
 *   "repair" tags, while rare symbols around digits are normally copied through as they are;
 * - short, so masking barely changes the text's length for the splitter.
 * `restore` still tolerates what engines do to such tokens: spaces inside (`⟦ 0 ⟧`), other digit forms
 * (full-width `⟦０⟧`, Arabic-Indic `⟦٠⟧`) and the look-alike brackets `〚0〛`; a token that is lost
 * anyway makes the chain try the next engine. A model whose vocabulary lacks `⟦⟧` (SentencePiece-based
 * offline models may map them to <unk>) should translate the text between tokens and keep the tokens
 * out of the model. Text that already contains token-like sequences, or any of the brackets tokens
 * are made of, gets those masked too, so they can never be mistaken for ours.
 */

import { isDecimalDigitCodePoint } from '@tp/runtime';
import type { TermMatch, TermScanner } from '@tp/translation';

import { protectedSpans, tokenAt } from './span-scanner.js';

export interface MaskedText {
  /** The text with every protected span replaced by its token. */
  readonly text: string;
  /** The original spans; a token's number is its index here. */
  readonly spans: readonly string[];
}

export interface RestoredText {
  readonly text: string;
  /** Indexes (into `spans`) of spans whose token is missing from the engine's output. */
  readonly lost: readonly number[];
  /** Indexes of spans whose token appears more than once (each occurrence is restored). */
  readonly duplicated: readonly number[];
  /** Tokens with a number we never issued, left as they are. */
  readonly unexpected: readonly string[];
  /** True when every span came back exactly once and nothing unexpected appeared. */
  readonly complete: boolean;
}

const OPEN = '⟦';
const CLOSE = '⟧';

export const token = (index: number): string => `${OPEN}${index}${CLOSE}`;

/** Glossary terms to mask as well: each match is restored as its target term. */
export interface MaskTerms {
  readonly scanner: TermScanner;
  /** Target term per term index of the scanner. */
  readonly targets: readonly string[];
}

/**
 * Replaces protected spans by tokens. Directly adjacent spans (`<b>{name}</b>`) become one token.
 * With `terms`, glossary source terms outside protected spans are masked too, and their token is
 * restored as the target term: the engine never sees the term, and the translation gets the target.
 */
export function mask(text: string, terms?: MaskTerms): MaskedText {
  const spans: string[] = [];
  let masked = '';
  let cursor = 0;
  for (const { start, end, value } of spansOf(text, terms)) {
    const plain = text.slice(cursor, start);
    if (plain === '' && spans.length > 0) {
      spans[spans.length - 1] += value;
    } else {
      masked += plain + token(spans.length);
      spans.push(value);
    }
    cursor = end;
  }
  return { text: masked + text.slice(cursor), spans };
}

/** Protected spans and glossary matches in text order; a match overlapping a protected span is dropped. */
function* spansOf(text: string, terms: MaskTerms | undefined) {
  if (!terms) {
    for (const [start, matchEnd] of protectedSpans(text)) {
      const end = start + spanLength(text.slice(start, matchEnd));
      yield { start, end, value: text.slice(start, end) };
    }
    return;
  }
  const matches = terms ? terms.scanner.find(text) : [];
  let next = 0;
  let cursor = 0;
  const termsBefore = function* (limit: number) {
    while (next < matches.length && (matches[next] as TermMatch).start < limit) {
      const match = matches[next] as TermMatch;
      next += 1;
      if (match.start >= cursor && match.end <= limit) {
        cursor = match.end;
        yield { start: match.start, end: match.end, value: terms?.targets[match.term] ?? '' };
      }
    }
  };
  for (const [start, matchEnd] of protectedSpans(text)) {
    const end = start + spanLength(text.slice(start, matchEnd));
    yield* termsBefore(start);
    cursor = end;
    yield { start, end, value: text.slice(start, end) };
  }
  yield* termsBefore(text.length);
}

/** The text with each protected span (adjacent ones together) replaced by one space: what is left to read. */
export function withoutProtectedSpans(text: string): string {
  let out = '';
  let cursor = 0;
  for (const [start, matchEnd] of protectedSpans(text)) {
    const end = start + spanLength(text.slice(start, matchEnd));
    if (start > cursor || out === '') out += `${text.slice(cursor, start)} `;
    cursor = end;
  }
  return out + text.slice(cursor);
}

const URL_PREFIXES = ['http://', 'https://', 'ftp://', 'www.'];

/**
 * Length of a matched span; URLs give back sentence punctuation and unbalanced closing brackets. The
 * brackets are counted once, then kept up to date as characters are given back.
 */
function spanLength(span: string): number {
  // Only a span starting with h, f or w (any case) can be a URL; most spans are not read further.
  const first = span.charCodeAt(0) | 0x20;
  if (first !== 0x68 && first !== 0x66 && first !== 0x77) return span.length;
  const head = span.slice(0, 8).toLowerCase();
  if (!URL_PREFIXES.some((prefix) => head.startsWith(prefix))) return span.length;
  const counts = new Map<string, number>();
  for (const ch of span) if ('()[]'.includes(ch)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  const count = (ch: string) => counts.get(ch) ?? 0;
  let end = span.length;
  for (;;) {
    const last = span[end - 1] as string;
    if (".,;:!?'*".includes(last)) end -= 1;
    else if ((last === ')' && count('(') < count(')')) || (last === ']' && count('[') < count(']'))) {
      counts.set(last, count(last) - 1);
      end -= 1;
    } else return end;
  }
}

/** Puts the original spans back in place of their tokens and reports what went missing or doubled. */
export function restore(translated: string, spans: readonly string[]): RestoredText {
  const seen = new Array<number>(spans.length).fill(0);
  const unexpected: string[] = [];
  let text = '';
  let cursor = 0;
  for (let i = 0; i < translated.length; i += 1) {
    const found = tokenAt(translated, i);
    if (!found) continue;
    const whole = translated.slice(i, found.end);
    const index = digitsValue(translated.slice(found.digitsStart, found.digitsEnd));
    const span = spans[index];
    text += translated.slice(cursor, i);
    if (span === undefined) {
      unexpected.push(whole);
      text += whole;
    } else {
      seen[index] = (seen[index] ?? 0) + 1;
      text += span;
    }
    cursor = found.end;
    i = found.end - 1;
  }
  text += translated.slice(cursor);
  const lost = indexesWhere(seen, (times) => times === 0);
  const duplicated = indexesWhere(seen, (times) => times > 1);
  return {
    text,
    lost,
    duplicated,
    unexpected,
    complete: lost.length === 0 && duplicated.length === 0 && unexpected.length === 0,
  };
}

const indexesWhere = (counts: readonly number[], test: (times: number) => boolean): number[] =>
  counts.flatMap((times, index) => (test(times) ? [index] : []));

/** Reads a number written in any Unicode decimal digits (ASCII, full-width, Arabic-Indic, …). */
function digitsValue(digits: string): number {
  let value = 0;
  for (const ch of digits) value = value * 10 + digitValue(ch);
  return value;
}

/** Unicode lays decimal digits out as runs of ten starting at zero, so the value is the offset in the run. */
function digitValue(ch: string): number {
  const code = ch.codePointAt(0) as number;
  let offset = 0;
  while (isDecimalDigitCodePoint(code - offset - 1)) offset += 1;
  return offset % 10;
}
