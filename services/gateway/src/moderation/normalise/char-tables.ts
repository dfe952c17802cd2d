/**
 * Character tables of the moderation normaliser. Each table applies after NFKC and lower-casing, so
 * it only lists lower-case forms; full-width and mathematical letters are already plain by then.
 */

/**
 * Letters of other scripts that look like a Latin letter, folded to it so that `fuсk` with a Cyrillic
 * `с` reads as `fuck`. Only look-alikes of whole words count: Cyrillic and Greek text is folded the
 * same way in terms and in texts, so Russian terms still match Russian text. Upper-case look-alikes
 * are listed through their lower-case form (`Н` folds to `н`, which looks like `H`, so `н` -> `h`).
 */
const LOOK_ALIKES: Readonly<Record<string, string>> = {
  // Cyrillic
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  һ: 'h',
  н: 'h',
  і: 'i',
  ї: 'i',
  ј: 'j',
  к: 'k',
  ӏ: 'l',
  м: 'm',
  о: 'o',
  р: 'p',
  ԛ: 'q',
  ѕ: 's',
  с: 'c',
  т: 't',
  у: 'y',
  ү: 'y',
  ԝ: 'w',
  х: 'x',
  ԁ: 'd',
  // Greek
  α: 'a',
  β: 'b',
  ε: 'e',
  η: 'h',
  ι: 'i',
  κ: 'k',
  μ: 'm',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  γ: 'y',
  ζ: 'z',
  ω: 'w',
  // Latin letters NFKC leaves alone
  ı: 'i',
  ɑ: 'a',
  ɡ: 'g',
  ʏ: 'y',
  // Not a look-alike but full case folding, which toLowerCase() does not do.
  ß: 'ss',
};

const lookAlikes = new Map<number, string>(
  Object.entries(LOOK_ALIKES).map(([from, to]) => [from.codePointAt(0) as number, to]),
);

/** Enclosed Latin capitals NFKC keeps (🅵, 🄵, 🅕): squared, negative circled and negative squared A-Z. */
const ENCLOSED_LATIN_RANGES: readonly number[] = [0x1f130, 0x1f150, 0x1f170];

/** The Latin letter a code point imitates, or undefined. */
export function lookAlike(codePoint: number): string | undefined {
  const mapped = lookAlikes.get(codePoint);
  if (mapped !== undefined) return mapped;
  for (const first of ENCLOSED_LATIN_RANGES) {
    if (codePoint >= first && codePoint < first + 26) return String.fromCharCode(0x61 + codePoint - first);
  }
  return undefined;
}

/**
 * Leetspeak: digits and symbols standing for letters. Applied only inside a token that has a letter,
 * so plain numbers (`1990`, `$5`) stay as they are. One (1) stands for `i` only: folding `l` and `i`
 * together would also make French `lui` look like Dutch `lul`.
 */
export const LEET: ReadonlyMap<number, number> = new Map(
  Object.entries({ '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '9': 'g', '@': 'a', $: 's' })
    .concat([
      ['!', 'i'],
      ['|', 'l'],
    ])
    .map(([from, to]) => [from.charCodeAt(0), to.charCodeAt(0)]),
);

/** `!` and `|` are punctuation at the end of a word (`shit!`), so they count as letters only inside one. */
export const LEET_INSIDE_ONLY: ReadonlySet<number> = new Set(['!'.charCodeAt(0), '|'.charCodeAt(0)]);

/**
 * Marks removed after composition: what NFKC left uncomposed of these blocks. A mark that forms a
 * letter with a precomposed form stays in it (`n` + `◌̃` -> `ñ`); the rest goes, be it stacked
 * decoration (zalgo, strike-through overlays) or the mark of a letter without one (Yoruba `ẹ̀` reads
 * as `ẹ`, Russian stressed `а́` as `а`). Arabic vowel signs and tatweel are optional in writing and
 * used to pad words apart.
 */
export function isDroppedMark(codePoint: number): boolean {
  return (
    (codePoint >= 0x0300 && codePoint <= 0x036f) ||
    (codePoint >= 0x1ab0 && codePoint <= 0x1aff) ||
    (codePoint >= 0x1dc0 && codePoint <= 0x1dff) ||
    (codePoint >= 0x20d0 && codePoint <= 0x20ff) ||
    (codePoint >= 0xfe20 && codePoint <= 0xfe2f) ||
    (codePoint >= 0x064b && codePoint <= 0x065f) ||
    codePoint === 0x0670 ||
    codePoint === 0x0640
  );
}

/**
 * Tested on one code point at a time. Emoji skin-tone modifiers and the prepended concatenation
 * marks (Prepended_Concatenation_Mark, which regular expressions cannot name, listed by code point)
 * are invisible to matching: left in, a modifier after a term's last letter or a mark before its
 * first would make that letter one grapheme cluster with it, which no term matches.
 */
const INVISIBLE =
  /^[\p{Default_Ignorable_Code_Point}\p{Emoji_Modifier}\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2\u{110bd}\u{110cd}]$/u;
const SPACE = /^[\s\p{Cc}]$/u;
/**
 * What extends the grapheme cluster before it besides combining marks: characters of
 * Grapheme_Extend that are not marks (halfwidth katakana sound marks U+FF9E-FF9F, ZWNJ, tags) and
 * Thai and Lao sara am (U+0E33, U+0EB3), whose NFKC form starts with a mark.
 */
const JOINS = /^[\p{M}\p{Grapheme_Extend}\u0e33\u0eb3]$/u;
const LETTER = /^[\p{L}\p{M}]$/u;
const TOKEN = /^[\p{L}\p{M}\p{N}]$/u;
/** Scripts written without spaces between words: terms in them match anywhere, not only as words. */
const UNSPACED =
  /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\p{Script=Tibetan}]$/u;

const ALPHABET = /^[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}]$/u;

/** Hangul vowel and final jamo: letters that compose with the syllable before them. */
export const isVowelOrFinalJamo = (codePoint: number) => codePoint >= 0x1160 && codePoint <= 0x11ff;

/** Class bits of a code point, computed once per code point and kept. */
export const CLASS = {
  /**
   * Zero-width and other default-ignorable characters (soft hyphen, ZWJ, word joiner, BOM...), emoji
   * skin-tone modifiers and prepended concatenation marks.
   */
  invisible: 1,
  /** White space and control characters: a word separator. */
  space: 2,
  /**
   * A combining mark, or another character that extends a grapheme cluster: belongs to the
   * character before it.
   */
  joins: 4,
  /** A letter or mark (of any script). */
  letter: 8,
  /** A letter, mark or digit: part of a token. */
  token: 16,
  /** A letter of a script written without spaces (Han, kana, Thai...). */
  unspaced: 32,
  /**
   * A Latin, Greek or Cyrillic letter: a mark still on one after NFKC (one of another script, or one
   * without a precomposed letter, as in Yoruba `ẹ̀`) is dropped.
   */
  alphabet: 64,
} as const;

const bmpClasses = new Uint8Array(0x10000);
const astralClasses = new Map<number, number>();
const KNOWN = 128;
/** Astral code points are kept up to this many, so texts of rare characters cannot grow memory without end. */
export const ASTRAL_CACHE_LIMIT = 20_000;

function computeClass(codePoint: number): number {
  const ch = String.fromCodePoint(codePoint);
  let bits = KNOWN;
  if (INVISIBLE.test(ch)) bits |= CLASS.invisible;
  if (SPACE.test(ch)) bits |= CLASS.space;
  if (JOINS.test(ch)) bits |= CLASS.joins;
  if (LETTER.test(ch)) bits |= CLASS.letter;
  if (TOKEN.test(ch)) bits |= CLASS.token;
  if (UNSPACED.test(ch)) bits |= CLASS.unspaced;
  if (ALPHABET.test(ch)) bits |= CLASS.alphabet;
  if (isVowelOrFinalJamo(codePoint)) bits |= CLASS.joins;
  return bits;
}

/** The CLASS bits of a code point (regular expressions run once per distinct code point). */
export function classOf(codePoint: number): number {
  if (codePoint < 0x10000) {
    let bits = bmpClasses[codePoint] as number;
    if (bits === 0) {
      bits = computeClass(codePoint);
      bmpClasses[codePoint] = bits;
    }
    return bits;
  }
  let bits = astralClasses.get(codePoint);
  if (bits === undefined) {
    bits = computeClass(codePoint);
    if (astralClasses.size < ASTRAL_CACHE_LIMIT) astralClasses.set(codePoint, bits);
  }
  return bits;
}
