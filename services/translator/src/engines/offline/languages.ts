/**
 * Opus-MT names languages with bare ISO 639 codes; our language list uses a few regional codes. Only
 * the codes that differ are listed; every other Opus code is ours as it is.
 */
const OPUS_TO_OURS: Readonly<Record<string, string>> = {
  zh: 'zh-CN',
};

/**
 * Multi-target models (`opus-mt-en-zh`, `opus-mt-en-mul`) pick the output language with a first
 * token such as `>>cmn_Hans<<`. For our code, the names to look for, best first; the bare language
 * (`>>de<<`) is tried last.
 */
const TARGET_TOKEN_NAMES: Readonly<Record<string, readonly string[]>> = {
  'zh-cn': ['cmn_Hans', 'zho_Hans', 'cmn', 'zho'],
  'zh-tw': ['cmn_Hant', 'zho_Hant'],
};

/** Opus-MT folder codes that name a group of languages, not one: we cannot route them. */
const LANGUAGE_GROUPS = new Set(['mul', 'gem', 'gmw', 'roa', 'sla', 'zle', 'zls', 'zlw', 'itc', 'cel']);

/** Our code for an Opus-MT code, or undefined for a language group. */
export function fromOpusCode(code: string): string | undefined {
  const lower = code.toLowerCase();
  if (LANGUAGE_GROUPS.has(lower)) return undefined;
  return OPUS_TO_OURS[lower] ?? lower;
}

/** Our codes compare case-insensitively (`zh-cn` is `zh-CN`). */
export function sameLanguage(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** Tokens of the form `>>xxx<<` in a vocabulary. */
// not user text: a model's own vocabulary
export const isLanguageToken = (token: string) => /^>>[\w-]+<<$/.test(token);

/**
 * The target-language token to put first: `undefined` when the model has no language tokens (a
 * single-target model); `null` when it has some but none for this language.
 */
export function targetLanguageToken(
  languageTokens: readonly string[],
  target: string,
): string | null | undefined {
  if (languageTokens.length === 0) return undefined;
  const lower = target.toLowerCase();
  const names = [...(TARGET_TOKEN_NAMES[lower] ?? []), lower.split('-')[0] as string];
  return names.map((name) => `>>${name}<<`).find((token) => languageTokens.includes(token)) ?? null;
}
