import { sameLanguage } from './languages.js';
import type { LanguagePair } from './model-folder.js';

/** Opus-MT covers far more pairs to and from English than between other languages. */
export const PIVOT_LANGUAGE = 'en';

/**
 * The models to chain for a request: the direct pair when installed, otherwise source -> en -> target.
 * Returns the chosen pairs in order (one or two), or undefined when no route exists.
 */
export function planRoute<P extends LanguagePair>(
  installed: readonly P[],
  source: string,
  target: string,
): readonly P[] | undefined {
  if (sameLanguage(source, target)) return undefined;
  const find = (from: string, to: string) =>
    installed.find((pair) => sameLanguage(pair.source, from) && sameLanguage(pair.target, to));
  const direct = find(source, target);
  if (direct) return [direct];
  if (sameLanguage(source, PIVOT_LANGUAGE) || sameLanguage(target, PIVOT_LANGUAGE)) return undefined;
  const first = find(source, PIVOT_LANGUAGE);
  const second = find(PIVOT_LANGUAGE, target);
  return first && second ? [first, second] : undefined;
}
