/**
 * Our language codes -> MyMemory's `langpair` codes (ISO 639 or RFC 3066, e.g. `zh-CN`). MyMemory
 * has no auto-detection we rely on, and reads `zh_TW` as an invalid language.
 */

const RFC3066 = /^([a-z]{2,3})(?:-([a-z0-9]{2,8}))?$/i;

const SCRIPTS = new Map([
  ['zh', 'zh-CN'],
  ['zh-hans', 'zh-CN'],
  ['zh-hant', 'zh-TW'],
]);

/** MyMemory code for our code, or undefined for `auto` and malformed codes. */
export function toMyMemoryCode(code: string): string | undefined {
  const normalized = code.replace('_', '-');
  const script = SCRIPTS.get(normalized.toLowerCase());
  if (script) return script;
  const match = RFC3066.exec(normalized);
  if (!match || normalized.toLowerCase() === 'auto') return undefined;
  const [, language = '', region] = match;
  return region
    ? `${language.toLowerCase()}-${region.length === 2 ? region.toUpperCase() : region}`
    : language.toLowerCase();
}
