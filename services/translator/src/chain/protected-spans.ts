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

/** Printable ASCII except space, `"`, `<` and `>`. */
const URL_CHAR = String.raw`[\x21\x23-\x3B\x3D\x3F-\x7E]`;

/** One source per kind, tried in this order at each position (earlier wins on overlap). */
const PATTERNS: readonly string[] = [
  // Token-like text already in the input (see above), then any other of the brackets tokens are made
  // of, so that no token-like text can form around our tokens either (`⟦7` + token + `⟧`).
  String.raw`[⟦〚]\s*\p{Nd}+\s*[⟧〛]`,
  '[⟦⟧〚〛]',
  // HTML comments, then tags with attributes (quoted values may contain ">"), closing and self-closing.
  String.raw`<!--[\s\S]*?-->`,
  String.raw`<\/?[A-Za-z][A-Za-z0-9:-]*(?:"[^"]*"|'[^']*'|[^'">])*>`,
  // Character references (&amp; &nbsp; &#169; &#x2014;): an engine would decode or translate them.
  String.raw`&(?:[A-Za-z][A-Za-z0-9]{1,31}|#\d{1,7}|#[xX][0-9A-Fa-f]{1,6});`,
  // URLs: printable ASCII only, so a URL ends where CJK text or full-width punctuation follows it;
  // trailing sentence punctuation is given back in spanLength().
  String.raw`\b(?:https?|ftp):\/\/${URL_CHAR}+|\bwww\.[A-Za-z0-9-]+\.${URL_CHAR}+`,
  // E-mail addresses, ASCII only so adjacent CJK text is not swallowed.
  String.raw`\b[A-Za-z0-9._%+-]+@(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}`,
  // Mustache {{x}} and ${x}, then ICU-style {name} / {0} (no spaces or nested braces).
  String.raw`\{\{[^{}]*\}\}`,
  String.raw`\$\{[^{}]*\}`,
  String.raw`\{[\p{L}\p{N}_.$-]*\}`,
  // printf: %s %d %1$s %-5.2f %%, and Python's %(name)s. No space flag, so "50% of" stays text, and
  // no letter may follow, so German "5%ige" does too (at the price of missing "%dx%d").
  String.raw`%(?:\d+\$)?[-+0#]*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|L|z|j|t)?[diouxXeEfFgGaAcspn](?!\p{L})`,
  '%%',
  String.raw`%\([\w]+\)[sdifr]`,
];
const PROTECTED = new RegExp(PATTERNS.join('|'), 'gu');
const TOKEN = /[⟦〚]\s*(\p{Nd}+)\s*[⟧〛]/gu;

export const token = (index: number): string => `${OPEN}${index}${CLOSE}`;

/** Replaces protected spans by tokens. Directly adjacent spans (`<b>{name}</b>`) become one token. */
export function mask(text: string): MaskedText {
  const spans: string[] = [];
  let masked = '';
  let cursor = 0;
  for (const match of text.matchAll(PROTECTED)) {
    const start = match.index;
    const end = start + spanLength(match[0]);
    const plain = text.slice(cursor, start);
    if (plain === '' && spans.length > 0) {
      spans[spans.length - 1] += text.slice(start, end);
    } else {
      masked += plain + token(spans.length);
      spans.push(text.slice(start, end));
    }
    cursor = end;
  }
  return { text: masked + text.slice(cursor), spans };
}

/** Length of a matched span; URLs give back sentence punctuation and unbalanced closing brackets. */
function spanLength(span: string): number {
  if (!/^(?:https?|ftp):\/\/|^www\./iu.test(span)) return span.length;
  let end = span.length;
  for (;;) {
    const last = span[end - 1] as string;
    if (".,;:!?'*".includes(last)) end -= 1;
    else if (last === ')' && count(span, '(', end) < count(span, ')', end)) end -= 1;
    else if (last === ']' && count(span, '[', end) < count(span, ']', end)) end -= 1;
    else return end;
  }
}

const count = (text: string, ch: string, end: number): number => text.slice(0, end).split(ch).length - 1;

/** Puts the original spans back in place of their tokens and reports what went missing or doubled. */
export function restore(translated: string, spans: readonly string[]): RestoredText {
  const seen = new Array<number>(spans.length).fill(0);
  const unexpected: string[] = [];
  const text = translated.replace(TOKEN, (whole: string, digits: string) => {
    const index = digitsValue(digits);
    const span = spans[index];
    if (span === undefined) {
      unexpected.push(whole);
      return whole;
    }
    seen[index] = (seen[index] ?? 0) + 1;
    return span;
  });
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

const DECIMAL_DIGIT = /^\p{Nd}$/u;

/** Unicode lays decimal digits out as runs of ten starting at zero, so the value is the offset in the run. */
function digitValue(ch: string): number {
  const code = ch.codePointAt(0) as number;
  let offset = 0;
  while (DECIMAL_DIGIT.test(String.fromCodePoint(code - offset - 1))) offset += 1;
  return offset % 10;
}
