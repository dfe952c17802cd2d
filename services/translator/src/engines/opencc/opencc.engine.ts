import { Converter } from 'opencc-js';

import { EngineError, type EngineItem, type TranslationEngine } from '../engine.js';
import { coverageOf, type PairCoverage } from '../pair-coverage.js';

/**
 * OpenCC (Open Chinese Convert) with the dictionaries shipped inside `opencc-js`: Simplified Chinese as
 * written in mainland China (zh-CN) to Traditional Chinese with Taiwan's vocabulary (zh-TW), and back.
 * It converts the script and the regional phrases (软件 -> 軟體, 鼠标 -> 滑鼠, 出租车 -> 計程車); it
 * does not translate, so it serves these two directions and nothing else. Conversion is a dictionary
 * walk in the process, linear in the text, deterministic.
 */
const CONVERSIONS: Readonly<Record<string, { readonly from: 'cn' | 'twp'; readonly to: 'cn' | 'twp' }>> = {
  'zh-CN>zh-TW': { from: 'cn', to: 'twp' },
  'zh-TW>zh-CN': { from: 'twp', to: 'cn' },
};

/** The directions OpenCC serves, in our codes. */
export const OPENCC_PAIRS = Object.keys(CONVERSIONS).map((key) => {
  const [source = '', target = ''] = key.split('>');
  return { source, target };
});

/** One call converts any text the chain accepts: conversion has no length limit of its own. */
const MAX_CHARS = 1_000_000;
/** Texts of one call: conversion is per text, so a batch only saves the chain's calls. */
const MAX_TEXTS = 1000;

export function createOpenCcEngine(): TranslationEngine {
  // Each converter builds its dictionary tries once (about 100 ms), on first use of its direction.
  const converters = new Map<string, (text: string) => string>();
  const converter = (key: string): ((text: string) => string) | undefined => {
    const known = converters.get(key);
    if (known) return known;
    const options = CONVERSIONS[key];
    if (!options) return undefined;
    const made = Converter(options);
    converters.set(key, made);
    return made;
  };
  const coverage: PairCoverage = coverageOf((source, target) => `${source}>${target}` in CONVERSIONS);

  return {
    name: 'opencc',
    maxChars: MAX_CHARS,
    batch: { maxTexts: MAX_TEXTS, maxChars: MAX_CHARS },
    languagePairs: async (): Promise<PairCoverage> => coverage,
    translate: async ({ texts, source, target }, signal): Promise<readonly EngineItem[]> => {
      signal.throwIfAborted();
      const convert = converter(`${source}>${target}`);
      if (!convert) {
        throw new EngineError(
          'opencc',
          'unsupported',
          `converts zh-CN <-> zh-TW only, not ${source} -> ${target}`,
        );
      }
      return texts.map((text) => ({ text: convert(text), truncated: false }));
    },
  };
}
