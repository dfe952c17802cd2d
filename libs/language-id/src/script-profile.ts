import { isLetterCodePoint, unitsOf } from '@tp/runtime';

/**
 * Writing systems as detection tells them apart: `cjk` is Han and kana together (a Japanese sentence
 * mixes both), `hangul` Korean; the others are alphabets, which the n-gram model reads.
 */
export type Script = 'cjk' | 'hangul' | 'latin' | 'cyrillic' | 'arabic' | 'devanagari' | 'other';

export interface ScriptProfile {
  /** Letters of any script. */
  readonly letters: number;
  readonly han: number;
  readonly kana: number;
  readonly hangul: number;
  /** Words per script (CJK characters count CJK_CHARACTERS_PER_WORD to a word). */
  readonly words: Readonly<Record<Script, number>>;
}

const SCRIPTS: readonly (readonly [Exclude<Script, 'cjk'>, RegExp])[] = [
  ['latin', /\p{Script=Latin}/u],
  ['cyrillic', /\p{Script=Cyrillic}/u],
  ['arabic', /\p{Script=Arabic}/u],
  ['devanagari', /\p{Script=Devanagari}/u],
  ['hangul', /\p{Script=Hangul}/u],
];
const HAN = /\p{Script=Han}/u;
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;

/** An unspaced script writes a word in about two characters. */
const CJK_CHARACTERS_PER_WORD = 2;

/**
 * One pass over the text's code points: letters of Han, kana and Hangul, and words (runs of letters,
 * combining marks included) per script.
 */
export function scriptProfile(text: string): ScriptProfile {
  const words: Record<Script, number> = {
    cjk: 0,
    hangul: 0,
    latin: 0,
    cyrillic: 0,
    arabic: 0,
    devanagari: 0,
    other: 0,
  };
  let letters = 0;
  let han = 0;
  let kana = 0;
  let hangul = 0;
  let word: Script | undefined;
  for (let i = 0; i < text.length;) {
    const codePoint = text.codePointAt(i) as number;
    i += unitsOf(codePoint);
    const char = String.fromCodePoint(codePoint);
    if (!isLetterCodePoint(codePoint)) {
      // A vowel sign or virama (Devanagari, Arabic harakat) continues its word, and so do the
      // digits, `_` and `-` of an identifier (`bfd_hash_table_init`, `apt-get`, `X11`).
      if (!MARK.test(char) && !(word === 'latin' && IDENTIFIER.test(char))) word = undefined;
      continue;
    }
    letters += 1;
    if (codePoint >= 0x2e80 && HAN.test(char)) han += 1;
    else if (codePoint >= 0x3040 && KANA.test(char)) kana += 1;
    else {
      const script = SCRIPTS.find(([, pattern]) => pattern.test(char))?.[0] ?? 'other';
      if (script === 'hangul') hangul += 1;
      if (word !== script) words[script] += 1;
      word = script;
      continue;
    }
    word = undefined;
  }
  words.cjk = (han + kana) / CJK_CHARACTERS_PER_WORD;
  return { letters, han, kana, hangul, words };
}

const MARK = /\p{M}/u;
const IDENTIFIER = /[\d_-]/u;

/** The script with most words, and its share of all words (0..1); undefined without letters. */
export function dominantScript(
  words: Readonly<Record<Script, number>>,
  except?: Script,
): { script: Script; share: number } | undefined {
  const entries = (Object.entries(words) as [Script, number][]).filter(([script]) => script !== except);
  const total = entries.reduce((sum, [, count]) => sum + count, 0);
  if (total === 0) return undefined;
  const [script, count] = entries.reduce((best, entry) => (entry[1] > best[1] ? entry : best));
  return { script, share: count / total };
}
