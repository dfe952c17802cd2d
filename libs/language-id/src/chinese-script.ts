import { Converter } from 'opencc-js';

/** How many characters of a Chinese text are written differently in the two scripts. */
export interface ChineseScriptCount {
  /** Characters that OpenCC changes when writing the text in Traditional: Simplified-only forms. */
  readonly simplified: number;
  /** Characters that OpenCC changes when writing the text in Simplified: Traditional-only forms. */
  readonly traditional: number;
}

let converters:
  { toTraditional: (text: string) => string; toSimplified: (text: string) => string } | undefined;

/**
 * Counts Simplified-only and Traditional-only characters with OpenCC's character dictionaries: a
 * character the conversion to Traditional changes is Simplified, and the reverse. Characters both
 * scripts share (你, 好, 的) count for neither. Linear in the text.
 */
export function countChineseScript(text: string): ChineseScriptCount {
  converters ??= {
    toTraditional: Converter({ from: 'cn', to: 't' }),
    toSimplified: Converter({ from: 't', to: 'cn' }),
  };
  return {
    simplified: differingCharacters(text, converters.toTraditional(text)),
    traditional: differingCharacters(text, converters.toSimplified(text)),
  };
}

/** Code points at which the two texts differ, position by position (conversion keeps lengths). */
function differingCharacters(text: string, converted: string): number {
  const a = Array.from(text);
  const b = Array.from(converted);
  let differing = Math.abs(a.length - b.length);
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i += 1) if (a[i] !== b[i]) differing += 1;
  return differing;
}
