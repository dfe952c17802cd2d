import type { DependencyCheck } from '@tp/runtime';

import type { TranslationChain } from './chain.js';

/**
 * `engines` on the translator's /ready (optional: the service answers either way): degraded when no
 * engine is configured (every translation is then 400 UNSUPPORTED_LANGUAGE_PAIR), when an engine's
 * language pairs could not be read, or when an engine's circuit breaker is open; up otherwise.
 */
export function enginesCheck(chain: Pick<TranslationChain, 'status' | 'directory'>): DependencyCheck {
  return {
    name: 'engines',
    required: false,
    check: async () => {
      const configured = chain.status().filter((slot) => slot.configured);
      if (configured.length === 0) {
        return {
          degraded:
            'no translation engine is configured: every translation answers 400 UNSUPPORTED_LANGUAGE_PAIR',
        };
      }
      const problems = [
        ...chain.directory
          .status()
          .flatMap(({ engine, lastError }) =>
            lastError === undefined ? [] : [`${engine}: its language pairs could not be read (${lastError})`],
          ),
        ...configured.flatMap(({ engine, breaker }) =>
          breaker === 'open' ? [`${engine}: circuit breaker open`] : [],
        ),
      ];
      return problems.length > 0 ? { degraded: problems.join('; ') } : undefined;
    },
  };
}
