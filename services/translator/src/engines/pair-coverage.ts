import { LANGUAGES } from '@tp/translation';

/** A translation direction in our language codes (`zh-CN`, `en`, ...). */
export interface LanguagePair {
  readonly source: string;
  readonly target: string;
}

/**
 * Which directions an engine serves, in our codes: what routing asks before it calls the engine.
 * Built from what the engine said about itself (its language list, its installed pairs or models).
 */
export interface PairCoverage {
  /** Whether `source -> target` is served; `source` may be `auto` (the engine detects the language). */
  serves(source: string, target: string): boolean;
  /** Every served direction between two listed languages (never `auto`), in language-list order. */
  pairs(): readonly LanguagePair[];
}

const CODES = LANGUAGES.map(({ code }) => code);

/**
 * The coverage of an engine whose adapter can answer "would you send this pair?" for our codes:
 * every pair of listed languages is asked once, here, so `serves` is a set lookup afterwards.
 * `detectsTo` says which targets an `auto` source can go to (none when the engine cannot detect).
 */
export function coverageOf(
  servesPair: (source: string, target: string) => boolean,
  detectsTo: (target: string) => boolean = () => false,
): PairCoverage {
  const served = new Set<string>();
  const list: LanguagePair[] = [];
  const autoTargets = new Set(CODES.filter((code) => detectsTo(code)));
  for (const source of CODES) {
    for (const target of CODES) {
      if (source === target || !servesPair(source, target)) continue;
      served.add(pairKey(source, target));
      list.push({ source, target });
    }
  }
  return {
    serves: (source, target) =>
      source === 'auto' ? autoTargets.has(target) : served.has(pairKey(source, target)),
    pairs: () => list,
  };
}

/** Every listed language into every other: for engines that do not say (tests, unknown engines). */
export const EVERY_PAIR: PairCoverage = coverageOf(
  () => true,
  () => true,
);

/** Serves nothing: an engine whose list is empty. */
export const NO_PAIR: PairCoverage = { serves: () => false, pairs: () => [] };

function pairKey(source: string, target: string): string {
  return `${source}>${target}`;
}
