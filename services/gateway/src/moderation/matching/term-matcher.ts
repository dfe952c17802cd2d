import AhoCorasick from 'modern-ahocorasick';

import { CLASS, classOf } from '../normalise/char-tables.js';
import { normalise, normaliseTerm, originalRange, type NormalisedText } from '../normalise/normalise.js';

export type TermKind = 'block' | 'allow';
export type TermSource = 'list' | 'custom';

/** One term as listed: from a built-in list or added by an admin. */
export interface TermEntry {
  readonly term: string;
  readonly kind: TermKind;
  /** Language code of the term; null for custom terms that apply to every language. */
  readonly language: string | null;
  readonly source: TermSource;
}

/** A blocked term found in a text; start/end are UTF-16 indices into the original text. */
export interface TermMatch {
  readonly term: string;
  readonly start: number;
  readonly end: number;
  /** The original text's substring [start, end). */
  readonly text: string;
  readonly language: string | null;
  readonly source: TermSource;
}

export interface FindOptions {
  /** Only list terms of these languages (by primary subtag: `zh-CN` selects `zh`); custom terms without a language always apply. */
  readonly languages?: readonly string[];
}

/** Every entry with the same normalised form and kind: one automaton pattern. */
interface Group {
  readonly kind: TermKind;
  /** Whether the group's ends must sit on word boundaries (terms of space-delimited scripts). */
  readonly checkStart: boolean;
  readonly checkEnd: boolean;
  /** Block entries, custom ones first, then in list order. */
  readonly entries: TermEntry[];
}

interface Span {
  readonly start: number;
  readonly end: number;
}

const primaryTag = (language: string) => language.split('-', 1)[0]?.toLowerCase() ?? '';

/** Whether a term's first or last code point is a letter, mark or digit of a space-delimited script. */
function wordEdge(skeleton: string, atStart: boolean): boolean {
  const codePoint = atStart ? skeleton.codePointAt(0) : lastCodePoint(skeleton);
  if (codePoint === undefined) return false;
  const bits = classOf(codePoint);
  return (bits & CLASS.token) !== 0 && (bits & CLASS.unspaced) === 0;
}

function lastCodePoint(text: string): number | undefined {
  const last = text.charCodeAt(text.length - 1);
  const pair = last >= 0xdc00 && last <= 0xdfff && text.length > 1;
  return text.codePointAt(text.length - (pair ? 2 : 1));
}

const hasUnspacedLetter = (skeleton: string) => {
  for (const ch of skeleton) if (classOf(ch.codePointAt(0) as number) & CLASS.unspaced) return true;
  return false;
};

/**
 * Whether the normalised unit next to a match lets it count as a whole word: it does unless it is a
 * letter or mark of a space-delimited script. Digits never protect a term (`shit2`, `fuck123`: they
 * are leetspeak or separators), and neither do Chinese, Japanese or Thai letters (`这是fuck`).
 */
function isBoundary(normalised: NormalisedText, index: number, before: boolean): boolean {
  const { text } = normalised;
  if (index < 0 || index >= text.length) return true;
  if (normalised.fromDigit[index] === 1) return true;
  let codePoint = text.charCodeAt(index);
  if (before && codePoint >= 0xdc00 && codePoint <= 0xdfff && index > 0) {
    codePoint = text.codePointAt(index - 1) as number;
  } else {
    codePoint = text.codePointAt(index) as number;
  }
  const bits = classOf(codePoint);
  return (bits & CLASS.letter) === 0 || (bits & CLASS.unspaced) !== 0;
}

/**
 * Block and allow terms compiled into one Aho-Corasick automaton over normalised text. Terms of
 * space-delimited scripts match whole words only (`ass` not in `classic`); terms with Chinese,
 * Japanese, Thai... letters match anywhere. A block match inside an allow match is dropped. Matches
 * take whole grapheme clusters of the normalised text, as the library matches them.
 */
export class TermMatcher {
  private constructor(
    private readonly automaton: AhoCorasick<number>,
    private readonly groups: readonly Group[],
    /** Entries left out: nothing matchable after normalisation. */
    readonly skipped: readonly TermEntry[],
  ) {}

  static build(entries: readonly TermEntry[]): TermMatcher {
    const byKey = new Map<string, Group>();
    const skipped: TermEntry[] = [];
    const patterns: { pattern: string; data: number }[] = [];
    const groups: Group[] = [];
    // Custom entries first, so a custom term is what a match reports when a list has it too.
    const ordered = [
      ...entries.filter((e) => e.source === 'custom'),
      ...entries.filter((e) => e.source === 'list'),
    ];
    for (const entry of ordered) {
      const skeleton = normaliseTerm(entry.term);
      const key = `${entry.kind}:${skeleton}`;
      const known = byKey.get(key);
      if (known) {
        known.entries.push(entry);
        continue;
      }
      if (skeleton === '') {
        skipped.push(entry);
        continue;
      }
      const unspaced = hasUnspacedLetter(skeleton);
      const group: Group = {
        kind: entry.kind,
        checkStart: !unspaced && wordEdge(skeleton, true),
        checkEnd: !unspaced && wordEdge(skeleton, false),
        entries: [entry],
      };
      byKey.set(key, group);
      patterns.push({ pattern: skeleton, data: groups.length });
      groups.push(group);
    }
    return new TermMatcher(new AhoCorasick(patterns), groups, skipped);
  }

  /**
   * Blocked terms in `text`, by start. A term inside another found term (`逼` in `傻逼`) is left out;
   * terms that only overlap are both reported.
   */
  find(text: string, options: FindOptions = {}): TermMatch[] {
    const normalised = normalise(text);
    if (normalised.text.length === 0) return [];
    const allowed: Span[] = [];
    const blocked: { span: Span; group: Group }[] = [];
    for (const { start, end, data } of this.automaton.search(normalised.text)) {
      const group = this.groups[data as number] as Group;
      if (group.checkStart && !isBoundary(normalised, start - 1, true)) continue;
      if (group.checkEnd && !isBoundary(normalised, end, false)) continue;
      if (group.kind === 'allow') allowed.push({ start, end });
      else blocked.push({ span: { start, end }, group });
    }
    const wanted = options.languages ? new Set(options.languages.map(primaryTag)) : undefined;
    const matches: TermMatch[] = [];
    for (const { span, group } of blocked) {
      if (allowed.some((a) => a.start <= span.start && span.end <= a.end)) continue;
      const entry = group.entries.find(
        (e) => wanted === undefined || e.language === null || wanted.has(primaryTag(e.language)),
      );
      if (!entry) continue;
      const [start, end] = originalRange(normalised, span.start, span.end);
      matches.push({
        term: entry.term,
        start,
        end,
        text: text.slice(start, end),
        language: entry.language,
        source: entry.source,
      });
    }
    return outermost(matches);
  }

  /** Number of automaton patterns (distinct normalised terms per kind). */
  get size(): number {
    return this.groups.length;
  }
}

/** Matches not contained in another one, by start (longest first at the same start). */
function outermost(matches: TermMatch[]): TermMatch[] {
  matches.sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: TermMatch[] = [];
  let reach = -1;
  for (const match of matches) {
    if (match.end <= reach) continue;
    kept.push(match);
    reach = match.end;
  }
  return kept;
}
