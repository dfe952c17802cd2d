import { openLanguageDetector as openModel, type Detection, type DetectorSize } from '@tp/language-id';

import { withoutProtectedSpans } from '../chain/index.js';

/**
 * The language of a text, for `source: auto` and POST /detect, by @tp/language-id (eld's n-grams,
 * the text's script, OpenCC's Simplified/Traditional check, a prior for the published languages).
 * Placeholders, URLs and tags are not language: an URL would make any text look English.
 */
export interface LanguageDetector {
  /** Our code of the text's language, or undefined when the text does not say enough to trust one. */
  detect(text: string): string | undefined;
  /** Every candidate with its confidence, and why none is trusted when none is. */
  identify(text: string): Detection;
}

export async function openLanguageDetector(size?: DetectorSize): Promise<LanguageDetector> {
  const model = await openModel(size);
  const identify = (text: string) => model.detect(withoutProtectedSpans(text));
  return { identify, detect: (text) => identify(text).language };
}
