import { codePoints, collapseWhitespace, isLetterCodePoint, unitsOf } from '@tp/runtime';

/** Sentences of this many code points, as the detection goal counts them. */
export const MIN_CHARS = 25;
export const MAX_CHARS = 200;
/** A sentence is mostly words: letters are at least this share of its non-space characters. */
const MIN_LETTER_SHARE = 0.6;
/** Words a sentence of a spaced script has at least (a label like "Open file" is not a sentence). */
const MIN_WORDS = 3;
/** Letters of the language's own script a sentence of a non-Latin script has at least. */
const MIN_SCRIPT_LETTERS = 5;

/** Languages written without spaces between words: the word count does not apply. */
const UNSPACED = new Set(['zh-CN', 'zh-TW', 'ja']);
/** The script a sentence of these languages must be written in (an untranslated string is not). */
const SCRIPTS: Readonly<Record<string, RegExp>> = {
  'zh-CN': /\p{Script=Han}/u,
  'zh-TW': /\p{Script=Han}/u,
  ja: /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u,
  ko: /\p{Script=Hangul}/u,
  ru: /\p{Script=Cyrillic}/u,
  ar: /\p{Script=Arabic}/u,
  hi: /\p{Script=Devanagari}/u,
};

/**
 * What is not language in a catalogue message: printf and Python directives, `{name}` and `$VAR`
 * placeholders, markup tags, URLs, command-line options, `quoted' and `quoted` code. Each alternative
 * is a bounded class or a literal run: linear on any input.
 */
// not user text: the messages of Debian's installed translation catalogues
const NOT_LANGUAGE = new RegExp(
  [
    "%(?:\\d{1,2}\\$)?[-+ #0']{0,4}(?:\\*|\\d{1,3})?(?:\\.(?:\\*|\\d{1,3}))?(?:hh|h|ll|l|L|z|j|t|q|I64|I32|I)?[diouxXeEfFgGaAcspnm%]",
    '%\\([A-Za-z_]{1,40}\\)[a-z]',
    '\\{[^{}\\s]{0,30}\\}',
    '\\$\\{?\\w{1,40}\\}?',
    '<[^<>]{1,40}>',
    'https?://\\S{1,200}',
    '(?<![\\w-])--?[A-Za-z][\\w-]{0,40}',
    "`[^`']{0,60}['`]",
  ].join('|'),
  'g',
);
/** Mnemonic markers of menu labels (`_Open`, `&Save`). */
const ACCELERATOR = /(?<!\w)[_&](?=\w)/gu;

/** The lines of one catalogue message as sentences, without placeholders and markup. */
export function messageLines(message: string): string[] {
  return message
    .split('\n')
    .map((line) => collapseWhitespace(line.replace(NOT_LANGUAGE, ' ').replace(ACCELERATOR, '')))
    .filter((line) => line !== '');
}

/** Whether a cleaned line is a sentence of `language` fit for the corpus. */
export function isSentence(line: string, language: string): boolean {
  const length = codePoints(line);
  if (length < MIN_CHARS || length > MAX_CHARS) return false;
  let letters = 0;
  let visible = 0;
  for (let i = 0; i < line.length;) {
    const codePoint = line.codePointAt(i) as number;
    i += unitsOf(codePoint);
    if (codePoint === 0x20) continue;
    visible += 1;
    if (isLetterCodePoint(codePoint)) letters += 1;
  }
  if (letters < MIN_LETTER_SHARE * visible) return false;
  if (!UNSPACED.has(language) && line.split(' ').filter((word) => /\p{L}/u.test(word)).length < MIN_WORDS) {
    return false;
  }
  const script = SCRIPTS[language];
  return !script || Array.from(line).filter((char) => script.test(char)).length >= MIN_SCRIPT_LETTERS;
}
