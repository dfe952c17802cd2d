import { isDecimalDigitCodePoint, isLetterCodePoint, isWhitespaceCode, unitsOf } from '@tp/runtime';

/**
 * Finds the spans protected-spans.ts masks, by hand and in time linear in the text. It gives exactly
 * what one global regular expression gave before (an alternation of the kinds below, the first kind
 * that matches at the leftmost position wins, the next search starts where the match ends), which the
 * unit tests check against that expression. The expression backtracked: `<a` followed by 50,000
 * letters, or `a.` repeated, took seconds (issue 16). Here every scan that can run far either consumes
 * what it scanned or remembers its outcome for the positions it passed.
 *
 * The kinds, in order:
 *   token-like text   [⟦〚]\s*\p{Nd}+\s*[⟧〛]      then any lone bracket of that form
 *   HTML comment      <!--[\s\S]*?-->
 *   HTML tag          <\/?[A-Za-z][A-Za-z0-9:-]*(?:"[^"]*"|'[^']*'|[^'">])*>
 *   character ref.    &(?:[A-Za-z][A-Za-z0-9]{1,31}|#\d{1,7}|#[xX][0-9A-Fa-f]{1,6});
 *   URL               \b(?:https?|ftp):\/\/U+   or   \bwww\.[A-Za-z0-9-]+\.U+   (U: printable ASCII but space " < >)
 *   e-mail            \b[A-Za-z0-9._%+-]+@(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}
 *   placeholders      \{\{[^{}]*\}\}   \$\{[^{}]*\}   \{[\p{L}\p{N}_.$-]*\}
 *   printf            %(?:\d+\$)?[-+0#]*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|L|z|j|t)?[diouxXeEfFgGaAcspn](?!\p{L})
 *                     %%   %\([\w]+\)[sdifr]
 */

const UNKNOWN = -2;
const NUMBER = /^\p{N}$/u;
const CONVERSIONS = 'diouxXeEfFgGaAcspn';
const LENGTH_MODIFIERS = ['hh', 'h', 'll', 'l', 'L', 'z', 'j', 't', ''];

const isAsciiLetter = (c: number): boolean => (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a;
const isAsciiDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isAsciiAlnum = (c: number): boolean => isAsciiLetter(c) || isAsciiDigit(c);
const isWordUnit = (c: number): boolean => isAsciiAlnum(c) || c === 0x5f;
const isHexDigit = (c: number): boolean => isAsciiDigit(c) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);
const isLabelUnit = (c: number): boolean => isAsciiAlnum(c) || c === 0x2d;
/** `[A-Za-z0-9._%+-]` */
const isLocalUnit = (c: number): boolean =>
  isAsciiAlnum(c) || c === 0x2e || c === 0x5f || c === 0x25 || c === 0x2b || c === 0x2d;
/** Printable ASCII except space, `"`, `<` and `>`. */
const isUrlUnit = (c: number): boolean => c >= 0x21 && c <= 0x7e && c !== 0x22 && c !== 0x3c && c !== 0x3e;
const isOpenBracket = (c: number): boolean => c === 0x27e6 || c === 0x301a;
const isCloseBracket = (c: number): boolean => c === 0x27e7 || c === 0x301b;

/** A token-like sequence `⟦ 12 ⟧`: where it ends, and where its digits are. */
export interface TokenAt {
  readonly end: number;
  readonly digitsStart: number;
  readonly digitsEnd: number;
}

/** Reads `[⟦〚]\s*\p{Nd}+\s*[⟧〛]` at `i`, or undefined. Runs only as far as its own characters go. */
export function tokenAt(text: string, i: number): TokenAt | undefined {
  if (!isOpenBracket(text.charCodeAt(i))) return undefined;
  let j = skipWhitespace(text, i + 1);
  const digitsStart = j;
  while (j < text.length) {
    const codePoint = text.codePointAt(j) as number;
    if (!isDecimalDigitCodePoint(codePoint)) break;
    j += unitsOf(codePoint);
  }
  if (j === digitsStart) return undefined;
  const digitsEnd = j;
  j = skipWhitespace(text, j);
  return isCloseBracket(text.charCodeAt(j)) ? { end: j + 1, digitsStart, digitsEnd } : undefined;
}

function skipWhitespace(text: string, from: number): number {
  let j = from;
  while (j < text.length && isWhitespaceCode(text.charCodeAt(j))) j += 1;
  return j;
}

/** The protected spans of a text as [start, end) pairs, left to right, never overlapping. */
export function* protectedSpans(text: string): Generator<readonly [number, number]> {
  const scanner = new SpanScanner(text);
  let i = 0;
  while (i < text.length) {
    const end = scanner.matchAt(i);
    if (end < 0) {
      i += 1;
      continue;
    }
    yield [i, end];
    i = end;
  }
}

/** One text's scan; the caches rely on positions being asked for in increasing order. */
class SpanScanner {
  private readonly n: number;
  /** A search for `-->` from here on found none. */
  private commentMissFrom = Number.POSITIVE_INFINITY;
  /** Outcome of a tag scan from a position outside quotes: its end, -1, or UNKNOWN. */
  private tagOutcome: Int32Array | undefined;
  /** The e-mail local part run last seen: [localFrom, localEnd) are all local-part characters. */
  private localFrom = -1;
  private localEnd = -1;
  /** The domain last scanned after an `@`, and where it ended (-1: no domain). */
  private domainFrom = -1;
  private domainEnd = -1;

  constructor(private readonly text: string) {
    this.n = text.length;
  }

  /** End of the span starting at `i`, or -1. The kinds are tried in the order of the file comment. */
  matchAt(i: number): number {
    const c = this.text.charCodeAt(i);
    if (isOpenBracket(c)) return tokenAt(this.text, i)?.end ?? i + 1;
    if (isCloseBracket(c)) return i + 1;
    if (c === 0x3c) return this.commentAt(i) ?? this.tagAt(i);
    if (c === 0x26) return this.characterReferenceAt(i);
    const boundary = this.boundaryAt(i);
    if (boundary) {
      const url = this.urlAt(i);
      if (url >= 0) return url;
      const mail = this.mailAt(i);
      if (mail >= 0) return mail;
    }
    if (c === 0x7b) return this.braceAt(i);
    if (c === 0x24) return this.code(i + 1) === 0x7b ? this.braceRunEnd(i + 2) : -1;
    if (c === 0x25) return this.percentAt(i);
    return -1;
  }

  private code(i: number): number {
    return i < this.n ? this.text.charCodeAt(i) : -1;
  }

  /** `\b`: a word character (ASCII letters, digits, `_`) on exactly one side. */
  private boundaryAt(i: number): boolean {
    return (i > 0 && isWordUnit(this.code(i - 1))) !== isWordUnit(this.code(i));
  }

  private commentAt(i: number): number | undefined {
    if (!this.text.startsWith('<!--', i)) return undefined;
    if (i + 4 >= this.commentMissFrom) return -1;
    const close = this.text.indexOf('-->', i + 4);
    if (close >= 0) return close + 3;
    this.commentMissFrom = i + 4;
    return -1;
  }

  private tagAt(i: number): number {
    let j = i + 1;
    if (this.code(j) === 0x2f) j += 1;
    if (!isAsciiLetter(this.code(j))) return -1;
    return this.tagEndFrom(j + 1);
  }

  /**
   * Scans attributes (quoted values may hold `>`) up to the first `>` outside quotes. Every position
   * passed outside quotes leads to the same outcome, so it is remembered: `<a<a<a...` costs one scan.
   */
  private tagEndFrom(from: number): number {
    const outcome = (this.tagOutcome ??= new Int32Array(this.n + 1).fill(UNKNOWN));
    const passed: number[] = [];
    let k = from;
    let result = -1;
    while (k < this.n) {
      if (outcome[k] !== UNKNOWN) {
        result = outcome[k] as number;
        break;
      }
      passed.push(k);
      const c = this.text.charCodeAt(k);
      if (c === 0x3e) {
        result = k + 1;
        break;
      }
      if (c === 0x22 || c === 0x27) {
        const close = this.text.indexOf(c === 0x22 ? '"' : "'", k + 1);
        if (close < 0) break;
        k = close + 1;
      } else {
        k += 1;
      }
    }
    for (const position of passed) outcome[position] = result;
    return result;
  }

  private characterReferenceAt(i: number): number {
    const j = i + 1;
    if (isAsciiLetter(this.code(j))) {
      const end = this.runEnd(j + 1, isAsciiAlnum, 31);
      return end > j + 1 && this.code(end) === 0x3b ? end + 1 : -1;
    }
    if (this.code(j) !== 0x23) return -1;
    const decimal = this.runEnd(j + 1, isAsciiDigit, 7);
    if (decimal > j + 1 && this.code(decimal) === 0x3b) return decimal + 1;
    const x = this.code(j + 1);
    if (x !== 0x78 && x !== 0x58) return -1;
    const hex = this.runEnd(j + 2, isHexDigit, 6);
    return hex > j + 2 && this.code(hex) === 0x3b ? hex + 1 : -1;
  }

  /** End of the run of `test` characters from `from`, at most `max` long. */
  private runEnd(from: number, test: (c: number) => boolean, max = Number.POSITIVE_INFINITY): number {
    let k = from;
    while (k < this.n && k - from < max && test(this.text.charCodeAt(k))) k += 1;
    return k;
  }

  private urlAt(i: number): number {
    const c = this.text.charCodeAt(i);
    if (c !== 0x68 && c !== 0x66 && c !== 0x77) return -1;
    const scheme = this.text.startsWith('http://', i)
      ? 7
      : this.text.startsWith('https://', i)
        ? 8
        : this.text.startsWith('ftp://', i)
          ? 6
          : 0;
    if (scheme > 0) {
      const end = this.runEnd(i + scheme, isUrlUnit);
      return end > i + scheme ? end : -1;
    }
    if (!this.text.startsWith('www.', i)) return -1;
    const label = this.runEnd(i + 4, isLabelUnit);
    if (label === i + 4 || this.code(label) !== 0x2e) return -1;
    const end = this.runEnd(label + 1, isUrlUnit);
    return end > label + 1 ? end : -1;
  }

  /** The local part is the whole run of local-part characters, which must end at `@`. */
  private mailAt(i: number): number {
    if (!isLocalUnit(this.code(i))) return -1;
    if (i < this.localFrom || i >= this.localEnd) {
      this.localFrom = i;
      this.localEnd = this.runEnd(i, isLocalUnit);
    }
    if (this.code(this.localEnd) !== 0x40) return -1;
    const from = this.localEnd + 1;
    if (this.domainFrom !== from) {
      this.domainFrom = from;
      this.domainEnd = this.domainEndFrom(from);
    }
    return this.domainEnd;
  }

  /** `(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}`: as many labels as there are, then back off until a TLD fits. */
  private domainEndFrom(from: number): number {
    const labelEnds: number[] = [];
    let k = from;
    for (;;) {
      const label = this.runEnd(k, isLabelUnit);
      if (label === k || this.code(label) !== 0x2e) break;
      k = label + 1;
      labelEnds.push(k);
    }
    for (let j = labelEnds.length - 1; j >= 0; j -= 1) {
      const start = labelEnds[j] as number;
      const end = this.runEnd(start, isAsciiLetter);
      if (end - start >= 2) return end;
    }
    return -1;
  }

  /** `{{x}}`, else ICU `{name}`. */
  private braceAt(i: number): number {
    if (this.code(i + 1) === 0x7b) {
      const end = this.braceRunEnd(i + 2);
      if (end >= 0 && this.code(end) === 0x7d) return end + 1;
    }
    let k = i + 1;
    while (k < this.n) {
      const codePoint = this.text.codePointAt(k) as number;
      const allowed =
        isLetterCodePoint(codePoint) ||
        NUMBER.test(String.fromCodePoint(codePoint)) ||
        codePoint === 0x5f ||
        codePoint === 0x2e ||
        codePoint === 0x24 ||
        codePoint === 0x2d;
      if (!allowed) break;
      k += unitsOf(codePoint);
    }
    return this.code(k) === 0x7d ? k + 1 : -1;
  }

  /** `[^{}]*\}` from `from`: the end after the closing brace, or -1. */
  private braceRunEnd(from: number): number {
    const end = this.runEnd(from, (c) => c !== 0x7b && c !== 0x7d);
    return this.code(end) === 0x7d ? end + 1 : -1;
  }

  private percentAt(i: number): number {
    const printf = this.printfAt(i);
    if (printf >= 0) return printf;
    if (this.code(i + 1) === 0x25) return i + 2;
    if (this.code(i + 1) !== 0x28) return -1;
    const name = this.runEnd(i + 2, isWordUnit);
    if (name === i + 2 || this.code(name) !== 0x29) return -1;
    return 'sdifr'.includes(this.text[name + 1] ?? '_') ? name + 2 : -1;
  }

  /**
   * Each part is greedy and no later part can take back what an earlier one took (the argument index
   * needs `$`, the width cannot end in a digit the next part would take...), so one pass decides,
   * except for the length modifier, whose alternatives are tried in the expression's order.
   */
  private printfAt(i: number): number {
    let j = i + 1;
    const position = this.runEnd(j, isAsciiDigit);
    if (position > j && this.code(position) === 0x24) j = position + 1;
    j = this.runEnd(j, (c) => c === 0x2d || c === 0x2b || c === 0x30 || c === 0x23);
    j = this.code(j) === 0x2a ? j + 1 : this.runEnd(j, isAsciiDigit);
    if (this.code(j) === 0x2e) {
      if (this.code(j + 1) === 0x2a) j += 2;
      else if (isAsciiDigit(this.code(j + 1))) j = this.runEnd(j + 1, isAsciiDigit);
    }
    for (const modifier of LENGTH_MODIFIERS) {
      if (!this.text.startsWith(modifier, j)) continue;
      const conversion = j + modifier.length;
      if (conversion >= this.n || !CONVERSIONS.includes(this.text[conversion] as string)) continue;
      const next = this.text.codePointAt(conversion + 1);
      if (next === undefined || !isLetterCodePoint(next)) return conversion + 1;
    }
    return -1;
  }
}
