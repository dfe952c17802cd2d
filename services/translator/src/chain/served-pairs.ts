import type { ServedPair } from '@tp/service-contracts';

import type { EngineName } from '../engines/engine.js';
import type { PairCoverage } from '../engines/pair-coverage.js';
import { pivotLanguages } from './pivot-routes.js';

/** A pair translatable now, for GET /pairs: the engines or the pivot route that serve it. */
export type { ServedPair };

export interface KnownCoverage {
  readonly name: EngineName;
  /** Undefined while the engine's list is unknown: it is left out. */
  readonly coverage?: PairCoverage;
}

/**
 * Every pair the engines serve, directly (with every engine that does, in chain order) or, where
 * none does, through the pivot language the chain would try first. Pairs come in the order the
 * engines list them, direct ones first.
 */
export function servedPairs(engines: readonly KnownCoverage[]): ServedPair[] {
  const known = engines.filter((engine) => engine.coverage !== undefined);
  const direct = new Map<string, { source: string; target: string; engines: EngineName[] }>();
  for (const { name, coverage } of known) {
    for (const { source, target } of coverage?.pairs() ?? []) {
      const key = `${source}>${target}`;
      const entry = direct.get(key) ?? { source, target, engines: [] };
      entry.engines.push(name);
      direct.set(key, entry);
    }
  }
  const enginesFor = (source: string, target: string) => direct.get(`${source}>${target}`)?.engines ?? [];
  const sources = new Set([...direct.values()].map(({ source }) => source));
  const targets = new Set([...direct.values()].map(({ target }) => target));
  const coverages = engines.map(({ coverage }) => coverage);
  const pivoted: ServedPair[] = [];
  for (const source of sources) {
    for (const target of targets) {
      if (source === target || direct.has(`${source}>${target}`)) continue;
      const [via] = pivotLanguages(coverages, source, target, 1);
      if (via === undefined) continue;
      pivoted.push({
        source,
        target,
        engines: [],
        via,
        route: [
          { source, target: via, engines: enginesFor(source, via) },
          { source: via, target, engines: enginesFor(via, target) },
        ],
      });
    }
  }
  return [...direct.values(), ...pivoted];
}
