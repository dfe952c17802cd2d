import { LANGUAGES, normaliseLanguageTag } from '@tp/translation';

/**
 * The one table of language codes of the DeepL- and LibreTranslate-compatible APIs: each code those
 * APIs publish, with ours. DeepL names variants the platform does not tell apart (`EN-GB`, `EN-US`,
 * `PT-BR`, `PT-PT`, `ES-419`): they are served as the language itself (en, pt, es). Languages the
 * platform has and DeepL does not publish (Catalan, Galician...) are read and listed under our own code
 * in upper case (`CA`), LibreTranslate's under our code as it is.
 */

type Role = 'source' | 'target' | 'both';

export interface DeepLLanguage {
  /** DeepL's code, upper case. */
  readonly code: string;
  /** Ours. */
  readonly ours: string;
  /** DeepL's own name for it. */
  readonly name: string;
  readonly role: Role;
  /** DeepL takes `formality` for this target. */
  readonly formality: boolean;
}

const deepl = (code: string, ours: string, name: string, role: Role, formality = false): DeepLLanguage => ({
  code,
  ours,
  name,
  role,
  formality,
});

/** DeepL's published source and target languages (GET /v2/languages of DeepL's API). */
export const DEEPL_LANGUAGES: readonly DeepLLanguage[] = [
  deepl('AR', 'ar', 'Arabic', 'both'),
  deepl('BG', 'bg', 'Bulgarian', 'both'),
  deepl('CS', 'cs', 'Czech', 'both'),
  deepl('DA', 'da', 'Danish', 'both'),
  deepl('DE', 'de', 'German', 'both', true),
  deepl('EL', 'el', 'Greek', 'both'),
  deepl('EN', 'en', 'English', 'source'),
  deepl('EN-GB', 'en', 'English (British)', 'target'),
  deepl('EN-US', 'en', 'English (American)', 'target'),
  deepl('ES', 'es', 'Spanish', 'both', true),
  deepl('ES-419', 'es', 'Spanish (Latin American)', 'target', true),
  deepl('ET', 'et', 'Estonian', 'both'),
  deepl('FI', 'fi', 'Finnish', 'both'),
  deepl('FR', 'fr', 'French', 'both', true),
  deepl('HE', 'he', 'Hebrew', 'both'),
  deepl('HU', 'hu', 'Hungarian', 'both'),
  deepl('ID', 'id', 'Indonesian', 'both'),
  deepl('IT', 'it', 'Italian', 'both', true),
  deepl('JA', 'ja', 'Japanese', 'both', true),
  deepl('KO', 'ko', 'Korean', 'both'),
  deepl('LT', 'lt', 'Lithuanian', 'both'),
  deepl('LV', 'lv', 'Latvian', 'both'),
  deepl('NB', 'nb', 'Norwegian Bokmål', 'both'),
  deepl('NL', 'nl', 'Dutch', 'both', true),
  deepl('PL', 'pl', 'Polish', 'both', true),
  deepl('PT', 'pt', 'Portuguese', 'source'),
  deepl('PT-BR', 'pt', 'Portuguese (Brazilian)', 'target', true),
  deepl('PT-PT', 'pt', 'Portuguese (European)', 'target', true),
  deepl('RO', 'ro', 'Romanian', 'both'),
  deepl('RU', 'ru', 'Russian', 'both', true),
  deepl('SK', 'sk', 'Slovak', 'both'),
  deepl('SL', 'sl', 'Slovenian', 'both'),
  deepl('SV', 'sv', 'Swedish', 'both'),
  deepl('TH', 'th', 'Thai', 'both'),
  deepl('TR', 'tr', 'Turkish', 'both'),
  deepl('UK', 'uk', 'Ukrainian', 'both'),
  deepl('VI', 'vi', 'Vietnamese', 'both'),
  deepl('ZH', 'zh-CN', 'Chinese', 'source'),
  deepl('ZH-HANS', 'zh-CN', 'Chinese (simplified)', 'target'),
  deepl('ZH-HANT', 'zh-TW', 'Chinese (traditional)', 'target'),
];

/** Targets DeepL deprecated but still reads: `EN` and `PT` as their variants, `ZH` as Simplified. */
const DEEPL_LEGACY_TARGETS: Readonly<Record<string, string>> = { EN: 'en', PT: 'pt', ZH: 'zh-CN' };

const DEEPL_BY_CODE = new Map(DEEPL_LANGUAGES.map((language) => [language.code, language]));

const serves = (language: DeepLLanguage, field: 'source' | 'target') =>
  language.role === 'both' || language.role === field;

/**
 * Our code for a DeepL code (case-insensitive), or undefined when neither DeepL nor the platform has
 * that language. A code DeepL does not publish is read as ours (`CA` -> ca).
 */
export function fromDeepLCode(field: 'source' | 'target', code: string): string | undefined {
  const upper = code.toUpperCase();
  const listed = DEEPL_BY_CODE.get(upper);
  if (listed && serves(listed, field)) return listed.ours;
  if (field === 'target' && DEEPL_LEGACY_TARGETS[upper]) return DEEPL_LEGACY_TARGETS[upper];
  if (listed) return undefined;
  const ours = normaliseLanguageTag(code);
  // Only a language DeepL has no code for: `EN-AU` is not a DeepL code for English.
  return ours && !DEEPL_LANGUAGES.some((language) => language.ours === ours) ? ours : undefined;
}

const baseOf = (code: string) => code.split('-')[0];

/** The DeepL source code of one of our codes (`zh-TW` -> `ZH`: DeepL reads Chinese as one; `ca` -> `CA`). */
export function deepLSourceCode(ours: string): string {
  const listed = DEEPL_LANGUAGES.find(
    (language) => baseOf(language.ours) === baseOf(ours) && serves(language, 'source'),
  );
  return listed?.code ?? ours.toUpperCase();
}

/** A language in DeepL's codes for GET /v2/languages: DeepL's own rows, then ours DeepL does not list. */
export function deepLLanguages(field: 'source' | 'target'): DeepLLanguage[] {
  const listed = DEEPL_LANGUAGES.filter((language) => serves(language, field));
  const covered = new Set(DEEPL_LANGUAGES.map((language) => language.ours));
  const others = LANGUAGES.filter(({ code }) => !covered.has(code)).map(({ code, name }) =>
    deepl(code.toUpperCase(), code, name, 'both'),
  );
  return [...listed, ...others];
}

/**
 * LibreTranslate's codes where they differ from ours. Current instances say `zh-Hans` / `zh-Hant`;
 * older ones `zh` / `zt`, and `pb` for Brazilian Portuguese, which are still read.
 */
const LIBRE_CODES: Readonly<Record<string, string>> = { 'zh-CN': 'zh-Hans', 'zh-TW': 'zh-Hant' };
const LIBRE_LEGACY: Readonly<Record<string, string>> = { zh: 'zh-CN', zt: 'zh-TW', pb: 'pt' };

/** LibreTranslate's code for one of ours. */
export const libreCode = (ours: string): string => LIBRE_CODES[ours] ?? ours;

/** Our code for a LibreTranslate code, or undefined when the platform does not have the language. */
export function fromLibreCode(code: string): string | undefined {
  return LIBRE_LEGACY[code] ?? normaliseLanguageTag(code);
}

/** LibreTranslate's published codes (its /languages on libretranslate.com), for the tests and docs. */
export const LIBRE_PUBLISHED_CODES = [
  'ar', 'az', 'bg', 'bn', 'ca', 'cs', 'da', 'de', 'el', 'en', 'eo', 'es', 'et', 'eu', 'fa', 'fi', 'fr',
  'ga', 'gl', 'he', 'hi', 'hu', 'id', 'it', 'ja', 'ko', 'ky', 'lt', 'lv', 'ms', 'nb', 'nl', 'pl', 'pt',
  'pt-BR', 'ro', 'ru', 'sk', 'sl', 'sq', 'sr', 'sv', 'th', 'tl', 'tr', 'uk', 'ur', 'vi', 'zh-Hans',
  'zh-Hant',
] as const; // prettier-ignore
