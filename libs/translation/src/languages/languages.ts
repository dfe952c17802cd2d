/**
 * The built-in language list: answered by GET /api/v1/translate/languages, and the fallback when the
 * translation backend is offline. Codes are ours (what clients send as source/target); adapters map
 * them to each engine's own codes.
 */

export type TextDirection = 'ltr' | 'rtl';

export interface Language {
  readonly code: string;
  /** English name. */
  readonly name: string;
  /** Name in the language itself. */
  readonly native_name: string;
  readonly dir: TextDirection;
}

/** The spec's published codes, in its order; they lead LANGUAGES. */
export const PUBLISHED_CODES = [
  'zh-CN',
  'en',
  'ja',
  'ko',
  'zh-TW',
  'es',
  'fr',
  'de',
  'pt',
  'ru',
  'ar',
  'hi',
  'id',
] as const;

const ltr = (code: string, name: string, native_name: string): Language => ({
  code,
  name,
  native_name,
  dir: 'ltr',
});
const rtl = (code: string, name: string, native_name: string): Language => ({
  code,
  name,
  native_name,
  dir: 'rtl',
});

export const LANGUAGES: readonly Language[] = Object.freeze([
  // Published (spec order).
  ltr('zh-CN', 'Chinese (Simplified)', '简体中文'),
  ltr('en', 'English', 'English'),
  ltr('ja', 'Japanese', '日本語'),
  ltr('ko', 'Korean', '한국어'),
  ltr('zh-TW', 'Chinese (Traditional)', '繁體中文'),
  ltr('es', 'Spanish', 'Español'),
  ltr('fr', 'French', 'Français'),
  ltr('de', 'German', 'Deutsch'),
  ltr('pt', 'Portuguese', 'Português'),
  ltr('ru', 'Russian', 'Русский'),
  rtl('ar', 'Arabic', 'العربية'),
  ltr('hi', 'Hindi', 'हिन्दी'),
  ltr('id', 'Indonesian', 'Bahasa Indonesia'),
  // Europe.
  ltr('it', 'Italian', 'Italiano'),
  ltr('nl', 'Dutch', 'Nederlands'),
  ltr('pl', 'Polish', 'Polski'),
  ltr('uk', 'Ukrainian', 'Українська'),
  ltr('be', 'Belarusian', 'Беларуская'),
  ltr('cs', 'Czech', 'Čeština'),
  ltr('sk', 'Slovak', 'Slovenčina'),
  ltr('sl', 'Slovenian', 'Slovenščina'),
  ltr('hr', 'Croatian', 'Hrvatski'),
  ltr('sr', 'Serbian', 'Српски'),
  ltr('bs', 'Bosnian', 'Bosanski'),
  ltr('mk', 'Macedonian', 'Македонски'),
  ltr('bg', 'Bulgarian', 'Български'),
  ltr('ro', 'Romanian', 'Română'),
  ltr('hu', 'Hungarian', 'Magyar'),
  ltr('el', 'Greek', 'Ελληνικά'),
  ltr('sv', 'Swedish', 'Svenska'),
  ltr('da', 'Danish', 'Dansk'),
  ltr('nb', 'Norwegian Bokmål', 'Norsk bokmål'),
  ltr('nn', 'Norwegian Nynorsk', 'Norsk nynorsk'),
  ltr('fi', 'Finnish', 'Suomi'),
  ltr('is', 'Icelandic', 'Íslenska'),
  ltr('et', 'Estonian', 'Eesti'),
  ltr('lv', 'Latvian', 'Latviešu'),
  ltr('lt', 'Lithuanian', 'Lietuvių'),
  ltr('ga', 'Irish', 'Gaeilge'),
  ltr('cy', 'Welsh', 'Cymraeg'),
  ltr('mt', 'Maltese', 'Malti'),
  ltr('sq', 'Albanian', 'Shqip'),
  ltr('ca', 'Catalan', 'Català'),
  ltr('eu', 'Basque', 'Euskara'),
  ltr('gl', 'Galician', 'Galego'),
  ltr('oc', 'Occitan', 'Occitan'),
  ltr('lb', 'Luxembourgish', 'Lëtzebuergesch'),
  ltr('tr', 'Turkish', 'Türkçe'),
  ltr('eo', 'Esperanto', 'Esperanto'),
  ltr('la', 'Latin', 'Latina'),
  // Right-to-left scripts.
  rtl('he', 'Hebrew', 'עברית'),
  rtl('fa', 'Persian', 'فارسی'),
  rtl('ur', 'Urdu', 'اردو'),
  rtl('ps', 'Pashto', 'پښتو'),
  rtl('yi', 'Yiddish', 'ייִדיש'),
  rtl('ug', 'Uyghur', 'ئۇيغۇرچە'),
  rtl('sd', 'Sindhi', 'سنڌي'),
  rtl('ckb', 'Central Kurdish', 'کوردیی ناوەندی'),
  rtl('dv', 'Dhivehi', 'ދިވެހިބަސް'),
  // South and South-East Asia.
  ltr('bn', 'Bengali', 'বাংলা'),
  ltr('ta', 'Tamil', 'தமிழ்'),
  ltr('te', 'Telugu', 'తెలుగు'),
  ltr('mr', 'Marathi', 'मराठी'),
  ltr('gu', 'Gujarati', 'ગુજરાતી'),
  ltr('kn', 'Kannada', 'ಕನ್ನಡ'),
  ltr('ml', 'Malayalam', 'മലയാളം'),
  ltr('pa', 'Punjabi', 'ਪੰਜਾਬੀ'),
  ltr('ne', 'Nepali', 'नेपाली'),
  ltr('si', 'Sinhala', 'සිංහල'),
  ltr('vi', 'Vietnamese', 'Tiếng Việt'),
  ltr('th', 'Thai', 'ไทย'),
  ltr('lo', 'Lao', 'ລາວ'),
  ltr('km', 'Khmer', 'ខ្មែរ'),
  ltr('my', 'Burmese', 'မြန်မာ'),
  ltr('ms', 'Malay', 'Bahasa Melayu'),
  ltr('tl', 'Tagalog (Filipino)', 'Tagalog'),
  ltr('jv', 'Javanese', 'Basa Jawa'),
  ltr('su', 'Sundanese', 'Basa Sunda'),
  // Caucasus and Central Asia.
  ltr('ka', 'Georgian', 'ქართული'),
  ltr('hy', 'Armenian', 'Հայերեն'),
  ltr('az', 'Azerbaijani', 'Azərbaycan'),
  ltr('kk', 'Kazakh', 'Қазақ тілі'),
  ltr('uz', 'Uzbek', 'Oʻzbekcha'),
  ltr('ky', 'Kyrgyz', 'Кыргызча'),
  ltr('tg', 'Tajik', 'Тоҷикӣ'),
  ltr('mn', 'Mongolian', 'Монгол'),
  // Africa.
  ltr('sw', 'Swahili', 'Kiswahili'),
  ltr('am', 'Amharic', 'አማርኛ'),
  ltr('ha', 'Hausa', 'Hausa'),
  ltr('yo', 'Yoruba', 'Yorùbá'),
  ltr('ig', 'Igbo', 'Igbo'),
  ltr('zu', 'Zulu', 'isiZulu'),
  ltr('xh', 'Xhosa', 'isiXhosa'),
  ltr('af', 'Afrikaans', 'Afrikaans'),
  ltr('so', 'Somali', 'Soomaali'),
]);

const BY_LOWER_CODE = new Map(LANGUAGES.map((language) => [language.code.toLowerCase(), language]));

/**
 * Other spellings of supported languages (lower case). Chinese is told apart by script: Hans is
 * simplified (zh-CN), Hant traditional (zh-TW); regions default to what they write. The rest are
 * deprecated or macro-language codes engines and browsers still send.
 */
const ALIASES: Readonly<Record<string, string>> = {
  zh: 'zh-CN',
  'zh-hans': 'zh-CN',
  'zh-sg': 'zh-CN',
  'zh-my': 'zh-CN',
  'zh-hant': 'zh-TW',
  'zh-hk': 'zh-TW',
  'zh-mo': 'zh-TW',
  iw: 'he',
  in: 'id',
  ji: 'yi',
  jw: 'jv',
  no: 'nb',
  fil: 'tl',
  mo: 'ro',
};

const TAG = /^[a-z0-9]{1,8}(?:-[a-z0-9]{1,8}){0,15}$/;

/**
 * Our code for a BCP 47-ish tag, or undefined when unsupported. Case-insensitive, `_` accepted for
 * `-`; subtags are dropped from the end until something matches (`en-US` -> `en`,
 * `zh-Hant-HK` -> `zh-hant` -> `zh-TW`). `auto` is not a language and gives undefined.
 */
export function normaliseLanguageTag(tag: string): string | undefined {
  // Most clients send a listed code as is; that needs no parsing.
  if (BY_LOWER_CODE.get(tag.toLowerCase())?.code === tag) return tag;
  const lower = tag.trim().replaceAll('_', '-').toLowerCase();
  if (!TAG.test(lower)) return undefined;
  const subtags = lower.split('-');
  for (let length = subtags.length; length > 0; length -= 1) {
    const candidate = subtags.slice(0, length).join('-');
    const code = BY_LOWER_CODE.get(candidate)?.code ?? ALIASES[candidate];
    if (code) return code;
  }
  return undefined;
}

/** True for a code exactly as listed (`zh-CN`, not `zh-cn`); normalise client input first. */
export const isSupported = (code: string): boolean => BY_LOWER_CODE.get(code.toLowerCase())?.code === code;

export const findLanguage = (code: string): Language | undefined => {
  const language = BY_LOWER_CODE.get(code.toLowerCase());
  return language?.code === code ? language : undefined;
};
