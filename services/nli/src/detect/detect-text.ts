import { AppError } from '@tp/runtime';
import type { Detection } from '@tp/service-contracts';

import type { ClassifyText } from '../classify/classify-text.js';
import type { NliConfigStore } from '../config/nli-config.store.js';
import { judge } from './verdict.js';

/** The answer of POST /detect (its contract: @tp/service-contracts). */
export type { Detection };

/**
 * The comprehensive check: classify against the configured labels (single-label, so the scores are
 * probabilities that sum to 1, as "top label probability" in the spec means), then judge. The
 * configuration is read on every call (from a copy at most NLI_CONFIG_CACHE_MS old), and only the
 * classification is cached, so a new threshold or safe-label list applies to cached texts too.
 */
export class DetectText {
  constructor(
    private readonly classify: ClassifyText,
    private readonly store: NliConfigStore,
  ) {}

  async execute(text: string): Promise<Detection> {
    const config = await this.store.current();
    if (!config.enabled) {
      // Never "safe" by default: a caller must know no judgement was made.
      throw new AppError(
        'NLI_DISABLED',
        'NLI moderation is disabled in the configuration; no verdict was made',
      );
    }
    const { result, cached, model } = await this.classify.execute({
      text,
      labels: config.candidateLabels,
      multiLabel: false,
      template: config.hypothesisTemplate,
    });
    const verdict = judge(result, config);
    return {
      is_safe: verdict.isSafe,
      risk_level: verdict.riskLevel,
      label: verdict.label,
      score: verdict.score,
      labels: result.labels,
      scores: result.scores,
      threshold: config.threshold,
      model,
      cached,
    };
  }
}
