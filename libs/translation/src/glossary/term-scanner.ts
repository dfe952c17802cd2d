/**
 * Finds glossary source terms in user text without regular expressions built from terms: a trie over
 * UTF-16 code units, walked from each position where a word may start. Matching is case-sensitive and
 * whole-word: a term whose first (last) character is a letter, mark or digit of a script written with
 * spaces must not have such a character just before (after) it. Scripts written without spaces (Han,
 * kana, Thai, Lao, Khmer, Myanmar) need no boundary, so `这是Acme手机` finds `Acme`.
 *
 * Where two terms overlap, the one starting first wins, and of those starting at the same place the
 * longest (leftmost-longest, as DeepL and most CAT tools apply glossaries).
 *
 * Cost: a walk starts at each position and reads at most the longest term's length
 * (GLOSSARY_LIMITS.maxTermLength, 200), so the work is at most n x 200 trie steps for a text of n code
 * units: linear in the text, whatever it holds (see the adversarial tests), and usually one step a
 * position, since most positions start no term.
 */

export interface TermMatch {
  readonly start: number;
  readonly end: number;
  /** Index of the term in the list the scanner was built from. */
  readonly term: number;
}

interface TrieNode {
  readonly next: Map<number, TrieNode>;
  /** Index of the term ending here, or -1. */
  term: number;
}

// Single code points only, so these patterns cannot backtrack.
const WORD = /^[\p{L}\p{M}\p{N}]$/u;
const UNSPACED =
  /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]$/u;

/** A letter, mark or digit of a script that separates words with spaces. */
function isSpacedWordChar(codePoint: number): boolean {
  const ch = String.fromCodePoint(codePoint);
  return WORD.test(ch) && !UNSPACED.test(ch);
}

/** The code point that ends just before `index`, or undefined at the start. */
function codePointBefore(text: string, index: number): number | undefined {
  if (index <= 0) return undefined;
  const low = text.charCodeAt(index - 1);
  if (low >= 0xdc00 && low <= 0xdfff && index >= 2) {
    const high = text.charCodeAt(index - 2);
    if (high >= 0xd800 && high <= 0xdbff) return text.codePointAt(index - 2);
  }
  return low;
}

const codePointAt = (text: string, index: number): number | undefined =>
  index < text.length ? text.codePointAt(index) : undefined;

export class TermScanner {
  private readonly root: TrieNode = { next: new Map(), term: -1 };
  /** Per term: whether its start and its end must sit on a word boundary. */
  private readonly edges: { start: boolean; end: boolean }[] = [];
  /** Steps taken by the last find(): for tests of the cost bound. */
  lastSteps = 0;

  constructor(terms: readonly string[]) {
    terms.forEach((term, index) => {
      if (term === '') return;
      let node = this.root;
      for (let i = 0; i < term.length; i += 1) {
        const unit = term.charCodeAt(i);
        let child = node.next.get(unit);
        if (!child) {
          child = { next: new Map(), term: -1 };
          node.next.set(unit, child);
        }
        node = child;
      }
      if (node.term < 0) node.term = index;
      const first = term.codePointAt(0) as number;
      const last = codePointBefore(term, term.length) as number;
      this.edges[index] = { start: isSpacedWordChar(first), end: isSpacedWordChar(last) };
    });
  }

  /** Non-overlapping whole-word matches, in text order. */
  find(text: string): TermMatch[] {
    const matches: TermMatch[] = [];
    this.lastSteps = 0;
    let i = 0;
    while (i < text.length) {
      const found = this.longestAt(text, i);
      if (found) {
        matches.push(found);
        i = found.end;
      } else {
        i += 1;
      }
    }
    return matches;
  }

  /** The longest whole-word term starting at `start`, if any. */
  private longestAt(text: string, start: number): TermMatch | undefined {
    // Read only once a term ends here: most positions start no term at all.
    let wordBefore: boolean | undefined;
    const isWordBefore = () => {
      const before = codePointBefore(text, start);
      wordBefore ??= before !== undefined && isSpacedWordChar(before);
      return wordBefore;
    };
    let node: TrieNode | undefined = this.root;
    let best: TermMatch | undefined;
    for (let i = start; i < text.length; i += 1) {
      this.lastSteps += 1;
      node = node.next.get(text.charCodeAt(i));
      if (!node) break;
      if (node.term < 0) continue;
      const edges = this.edges[node.term] as { start: boolean; end: boolean };
      if (edges.start && isWordBefore()) continue;
      const after = codePointAt(text, i + 1);
      if (edges.end && after !== undefined && isSpacedWordChar(after)) continue;
      best = { start, end: i + 1, term: node.term };
    }
    return best;
  }
}
