import { normaliseLanguageTag } from '@tp/translation';
// The 639-3 -> 639-1 table alone (2 kB), not the package's full 780 kB list of languages.
import { iso6393To1 } from 'iso-639-3/iso6393-to-1.js';

/**
 * Apertium's language codes -> ours. APy names languages with ISO 639-3 codes (`eng`, `spa`, `cat`),
 * a few older pairs with ISO 639-1 (`en`, `gl`, `pt`), and variants after an underscore (`eng_US`,
 * `por_BR`, `cat_valencia`). The ISO tables come from the `iso-639-3` package; only what they cannot
 * say is listed here.
 */
const SPECIAL: Readonly<Record<string, readonly string[]>> = {
  // Malay (individual language) and Serbo-Croatian (a macrolanguage without an ISO 639-1 code, read
  // as Croatian, Serbian or Bosnian by Apertium's analysers).
  zlm: ['ms'],
  hbs: ['hr', 'sr', 'bs'],
};

/** Variants that name one of our codes themselves (`hbs_SR` is Serbian). */
const VARIANT_CODES: Readonly<Record<string, string>> = { hbs_hr: 'hr', hbs_sr: 'sr', hbs_bs: 'bs' };

/** An Apertium code split into its language and its variant (`cat_valencia` -> cat + valencia). */
export function splitApertiumCode(code: string): { language: string; variant?: string } {
  const [language = '', ...rest] = code.split('_');
  return rest.length > 0 ? { language, variant: rest.join('_') } : { language };
}

/** Our codes for an Apertium code; empty when the language is not in our list. */
export function fromApertiumCode(code: string): readonly string[] {
  const byVariant = VARIANT_CODES[code.toLowerCase()];
  if (byVariant) return [byVariant];
  const { language } = splitApertiumCode(code.toLowerCase());
  const special = SPECIAL[language];
  if (special) return special;
  const iso1 = language.length === 3 ? iso6393To1[language] : language;
  const ours = iso1 === undefined ? undefined : normaliseLanguageTag(iso1);
  return ours ? [ours] : [];
}
