import { normaliseLanguageTag } from '@tp/translation';

import { unsupportedLanguage } from '../language.js';

/**
 * The script of listed codes whose language the list has in more than one script. A fallback never
 * changes script: as in CLDR, where the parent of zh-Hant is root and not zh, a reader of Traditional
 * Chinese is not served Simplified in its place.
 */
const SCRIPTS: Readonly<Record<string, string>> = { 'zh-CN': 'Hans', 'zh-TW': 'Hant' };

/**
 * Codes of the language list to look for, best first, for an `x-language` tag: case and `_` do not
 * matter, and subtags are dropped from the end (`en-US` -> `en`; `zh-Hant-TW` -> `zh-TW`, and not
 * `zh-CN`). Empty when no code of the list matches.
 */
export function languageChain(tag: string): string[] {
  const subtags = tag.trim().replaceAll('_', '-').toLowerCase().split('-');
  const chain: string[] = [];
  for (let length = subtags.length; length > 0; length -= 1) {
    const code = normaliseLanguageTag(subtags.slice(0, length).join('-'));
    if (!code || chain.includes(code)) continue;
    if (chain.length > 0 && SCRIPTS[code] !== SCRIPTS[chain[0] as string]) continue;
    chain.push(code);
  }
  return chain;
}

/** The chain of a tag from the `x-language` header, or 400 UNSUPPORTED_LANGUAGE. */
export function requestedLanguages(tag: string): string[] {
  const chain = languageChain(tag);
  if (chain.length === 0) throw unsupportedLanguage('x-language', tag);
  return chain;
}
