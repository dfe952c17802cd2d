/**
 * Our language codes <-> DeepL's. DeepL source codes are bare (`ZH`, `PT`); target codes carry the
 * variant where DeepL has one (`EN-US`, `PT-BR`, `ZH-HANS`). DeepL reads them case-insensitively.
 */

const SOURCES = new Set([
  'AR', 'BG', 'CS', 'DA', 'DE', 'EL', 'EN', 'ES', 'ET', 'FI', 'FR', 'HE', 'HU', 'ID', 'IT', 'JA', 'KO',
  'LT', 'LV', 'NB', 'NL', 'PL', 'PT', 'RO', 'RU', 'SK', 'SL', 'SV', 'TH', 'TR', 'UK', 'VI', 'ZH',
]); // prettier-ignore

/** Targets without a variant; English, Portuguese and Chinese are handled by VARIANT_TARGETS. */
const PLAIN_TARGETS = new Set([
  'AR', 'BG', 'CS', 'DA', 'DE', 'EL', 'ES', 'ET', 'FI', 'FR', 'HE', 'HU', 'ID', 'IT', 'JA', 'KO', 'LT',
  'LV', 'NB', 'NL', 'PL', 'RO', 'RU', 'SK', 'SL', 'SV', 'TH', 'TR', 'UK', 'VI',
]); // prettier-ignore

/**
 * Our code (lower case) -> DeepL target. DeepL deprecates the bare `EN` and `PT` targets; like DeepL's
 * own fallback, plain `pt` means European Portuguese.
 */
const VARIANT_TARGETS = new Map([
  ['en', 'EN-US'],
  ['en-us', 'EN-US'],
  ['en-gb', 'EN-GB'],
  ['pt', 'PT-PT'],
  ['pt-pt', 'PT-PT'],
  ['pt-br', 'PT-BR'],
  ['es-419', 'ES-419'],
  ['zh', 'ZH-HANS'],
  ['zh-cn', 'ZH-HANS'],
  ['zh-sg', 'ZH-HANS'],
  ['zh-hans', 'ZH-HANS'],
  ['zh-tw', 'ZH-HANT'],
  ['zh-hk', 'ZH-HANT'],
  ['zh-mo', 'ZH-HANT'],
  ['zh-hant', 'ZH-HANT'],
]);

/** Languages whose base code differs between ISO 639-1 and DeepL. */
const BASE_ALIASES = new Map([['no', 'NB']]);

const baseOf = (code: string): string => {
  const base = code.toLowerCase().split(/[-_]/)[0] ?? '';
  return BASE_ALIASES.get(base) ?? base.toUpperCase();
};

/** DeepL source code for our code, or undefined when DeepL cannot read that language. */
export function toDeepLSource(code: string): string | undefined {
  const base = baseOf(code);
  return SOURCES.has(base) ? base : undefined;
}

/** DeepL target code for our code, or undefined when DeepL cannot write that language. */
export function toDeepLTarget(code: string): string | undefined {
  const variant = VARIANT_TARGETS.get(code.toLowerCase().replace('_', '-'));
  if (variant) return variant;
  const base = baseOf(code);
  return PLAIN_TARGETS.has(base) ? base : undefined;
}

/** Our code for a language DeepL detected (`EN`, `ZH`). DeepL does not tell the Chinese scripts apart. */
export function fromDeepLCode(code: string): string {
  return code.toUpperCase() === 'ZH' ? 'zh-CN' : code.toLowerCase();
}
