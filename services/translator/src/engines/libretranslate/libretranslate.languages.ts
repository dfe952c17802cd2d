/**
 * Our language codes <-> LibreTranslate's. An instance's codes depend on the Argos models it installed:
 * older ones use `zh` / `zt` for Simplified / Traditional Chinese, newer ones `zh-Hans` / `zh-Hant`;
 * Brazilian Portuguese is `pb`. The engine picks the first candidate the instance's /languages lists.
 */

const CANDIDATES = new Map<string, readonly string[]>([
  ['zh', ['zh-Hans', 'zh']],
  ['zh-cn', ['zh-Hans', 'zh']],
  ['zh-sg', ['zh-Hans', 'zh']],
  ['zh-hans', ['zh-Hans', 'zh']],
  ['zh-tw', ['zh-Hant', 'zt']],
  ['zh-hk', ['zh-Hant', 'zt']],
  ['zh-mo', ['zh-Hant', 'zt']],
  ['zh-hant', ['zh-Hant', 'zt']],
  ['pt-br', ['pb', 'pt-BR']],
  ['pt-pt', ['pt']],
  ['no', ['nb', 'no']],
  ['nb', ['nb', 'no']],
]);

/** LibreTranslate codes that may stand for our code, preferred first. */
export function libreCandidates(code: string): readonly string[] {
  const lower = code.toLowerCase().replace('_', '-');
  return CANDIDATES.get(lower) ?? [lower.split('-')[0] ?? lower];
}

const FROM_LIBRE = new Map([
  ['zh', 'zh-CN'],
  ['zh-Hans', 'zh-CN'],
  ['zt', 'zh-TW'],
  ['zh-Hant', 'zh-TW'],
  ['pb', 'pt-BR'],
]);

/** Our code for a LibreTranslate code (a detected language). */
export function fromLibreCode(code: string): string {
  return FROM_LIBRE.get(code) ?? code;
}
