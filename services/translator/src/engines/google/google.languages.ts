/**
 * Our language codes <-> Google Cloud Translation v2. Google mostly uses ISO 639-1 codes, keeps
 * `zh-CN` / `zh-TW` (and `pt-PT`, `mni-Mtei`) as they are, and still answers with the legacy `iw`
 * (Hebrew) and `jw` (Javanese) when it detects a language.
 */

/** Google v2 codes (the list published for the Basic edition). */
const SUPPORTED = new Set([
  'af', 'ak', 'am', 'ar', 'as', 'ay', 'az', 'be', 'bg', 'bho', 'bm', 'bn', 'bs', 'ca', 'ceb', 'ckb', 'co',
  'cs', 'cy', 'da', 'de', 'doi', 'dv', 'ee', 'el', 'en', 'eo', 'es', 'et', 'eu', 'fa', 'fi', 'fr', 'fy',
  'ga', 'gd', 'gl', 'gn', 'gom', 'gu', 'ha', 'haw', 'he', 'hi', 'hmn', 'hr', 'ht', 'hu', 'hy', 'id', 'ig',
  'ilo', 'is', 'it', 'ja', 'jv', 'ka', 'kk', 'km', 'kn', 'ko', 'kri', 'ku', 'ky', 'la', 'lb', 'lg', 'ln',
  'lo', 'lt', 'lus', 'lv', 'mai', 'mg', 'mi', 'mk', 'ml', 'mn', 'mni-Mtei', 'mr', 'ms', 'mt', 'my', 'ne',
  'nl', 'no', 'nso', 'ny', 'om', 'or', 'pa', 'pl', 'ps', 'pt', 'pt-PT', 'qu', 'ro', 'ru', 'rw', 'sa', 'sd',
  'si', 'sk', 'sl', 'sm', 'sn', 'so', 'sq', 'sr', 'st', 'su', 'sv', 'sw', 'ta', 'te', 'tg', 'th', 'ti',
  'tk', 'tl', 'tr', 'ts', 'tt', 'ug', 'uk', 'ur', 'uz', 'vi', 'xh', 'yi', 'yo', 'zh-CN', 'zh-TW', 'zu',
]); // prettier-ignore

/** Our code (lower case) -> Google code, where it is not just the base language. */
const SPECIAL = new Map([
  ['zh', 'zh-CN'],
  ['zh-cn', 'zh-CN'],
  ['zh-sg', 'zh-CN'],
  ['zh-hans', 'zh-CN'],
  ['zh-tw', 'zh-TW'],
  ['zh-hk', 'zh-TW'],
  ['zh-mo', 'zh-TW'],
  ['zh-hant', 'zh-TW'],
  ['pt-pt', 'pt-PT'],
  ['mni-mtei', 'mni-Mtei'],
  ['fil', 'tl'],
  ['nb', 'no'],
]);

/** Google code for our code, or undefined when Google does not list the language. */
export function toGoogleCode(code: string): string | undefined {
  const lower = code.toLowerCase().replace('_', '-');
  const google = SPECIAL.get(lower) ?? lower.split('-')[0] ?? '';
  return SUPPORTED.has(google) ? google : undefined;
}

const FROM_GOOGLE = new Map([
  ['iw', 'he'],
  ['jw', 'jv'],
  ['zh', 'zh-CN'],
]);

/** Our code for a language Google detected. */
export function fromGoogleCode(code: string): string {
  return FROM_GOOGLE.get(code) ?? code;
}
