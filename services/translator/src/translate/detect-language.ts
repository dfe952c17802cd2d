import { countLetters } from '@tp/runtime';
import { normaliseLanguageTag } from '@tp/translation';
import { eld } from 'eld';

import { withoutProtectedSpans } from '../chain/index.js';

/**
 * Guesses the language of a text for `source: auto`, with eld (n-grams, no network). Returns our
 * language code, or undefined when the guess is not trustworthy: then the engines are asked to
 * detect instead.
 */
export interface LanguageDetector {
  detect(text: string): string | undefined;
}

/** eld's database sizes; `medium` is eld's default (about 70 MB of memory, loaded once). */
export type DetectorSize = 'extrasmall' | 'small' | 'medium' | 'large';

/** eld codes that normaliseLanguageTag reads otherwise: eld's Kurdish is the Arabic-script one. */
const ELD_CODES: Readonly<Record<string, string>> = { ku: 'ckb' };

/**
 * On short text eld's "reliable" is not enough: it calls "Hello, world!" Norwegian (0.710 against
 * Tagalog 0.709). Below LONG_TEXT letters the best score must also lead the runner-up by MIN_LEAD;
 * a coin toss is better left to an engine that detects. Longer text is trusted as eld says, since
 * languages sharing a script (ru, uk, bg; hi, mr) score close together even when eld is right.
 */
const LONG_TEXT = 20;
const MIN_LEAD = 0.05;

function confident(scores: Record<string, number>, reliable: boolean, letters: number): boolean {
  const [best = 0, second] = Object.values(scores).sort((a, b) => b - a);
  // A lone candidate (a script only one language uses, e.g. 你好) is trusted even on very short text.
  if (second === undefined) return true;
  if (!reliable) return false;
  return letters >= LONG_TEXT || best - second >= MIN_LEAD;
}

type Eld = ReturnType<typeof eld.newInstance>;
const hasLoader = (instance: Eld): instance is Eld & { load(size: string): Promise<unknown> } =>
  'load' in instance && typeof instance.load === 'function';

export async function openLanguageDetector(size: DetectorSize = 'medium'): Promise<LanguageDetector> {
  // The package root is eld's dynamic entry: an instance has no database until load().
  const instance = eld.newInstance();
  if (!hasLoader(instance)) throw new Error('eld: expected the dynamic entry, which loads its database');
  await instance.load(size);
  return {
    detect(text) {
      // Placeholders, URLs and tags are not language: an URL would make any text look English.
      const words = withoutProtectedSpans(text);
      const letters = countLetters(words);
      if (letters === 0) return undefined;
      const result = instance.detect(words);
      if (result.language === '') return undefined;
      if (!confident(result.getScores(), result.isReliable(), letters)) return undefined;
      return ELD_CODES[result.language] ?? normaliseLanguageTag(result.language);
    },
  };
}
