import { LANGUAGES } from '@tp/translation';

import type { PairCoverage } from '../engines/pair-coverage.js';

/** Most pivot languages one request tries after no engine served its pair directly. */
export const MAX_PIVOTS = 2;

/** English first: most engines and language pairs connect through it; then the language list's order. */
const PIVOT_PREFERENCE = ['en', ...LANGUAGES.map(({ code }) => code).filter((code) => code !== 'en')];

/**
 * The intermediate languages through which `source -> target` can go in two hops, best first.
 * `coverages` are the chain's engines in chain order (stronger first; undefined = not known). A pivot
 * is ranked by its weaker hop (the best engine of each hop, then the worse of the two), then by the
 * two hops together, then by PIVOT_PREFERENCE.
 */
export function pivotLanguages(
  coverages: readonly (PairCoverage | undefined)[],
  source: string,
  target: string,
  max = MAX_PIVOTS,
): string[] {
  if (source === target) return [];
  const bestEngine = (from: string, to: string): number =>
    coverages.findIndex((coverage) => coverage?.serves(from, to) === true);
  const candidates: { via: string; worst: number; sum: number; order: number }[] = [];
  PIVOT_PREFERENCE.forEach((via, order) => {
    if (via === source || via === target) return;
    const first = bestEngine(source, via);
    const second = first < 0 ? -1 : bestEngine(via, target);
    if (second < 0) return;
    candidates.push({ via, worst: Math.max(first, second), sum: first + second, order });
  });
  candidates.sort((a, b) => a.worst - b.worst || a.sum - b.sum || a.order - b.order);
  return candidates.slice(0, max).map(({ via }) => via);
}
