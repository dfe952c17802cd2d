import type { nliConfig } from '@tp/service-contracts';
import type { z } from 'zod';

import type { ValidationIssue } from '../http/parse-body.js';

/** The nli_config row as the service uses it. */
export interface ModerationConfig {
  readonly candidateLabels: readonly string[];
  /** Labels that never make a violation (spec: "not a safe label"); a subset of candidateLabels. */
  readonly safeLabels: readonly string[];
  /** nli.violation_threshold: a violation needs a top score at least this high. */
  readonly threshold: number;
  readonly hypothesisTemplate: string;
  /** False: /detect answers 409 NLI_DISABLED instead of a verdict. */
  readonly enabled: boolean;
  /** Bumped by every update. */
  readonly revision: number;
  readonly updatedAt: Date;
}

/** What PUT /config may change; absent fields keep their value. */
export type ConfigChange = Partial<
  Pick<ModerationConfig, 'candidateLabels' | 'safeLabels' | 'threshold' | 'hypothesisTemplate' | 'enabled'>
>;

/**
 * Rules that span fields, checked on the configuration after a change: every safe label must be a
 * candidate label, and at least one candidate must be unsafe (else /detect could never flag anything).
 */
export function configProblems(
  config: Pick<ModerationConfig, 'candidateLabels' | 'safeLabels'>,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  config.safeLabels.forEach((label, i) => {
    if (!config.candidateLabels.includes(label)) {
      issues.push({
        path: `body.safe_labels.${i}`,
        message: `"${label}" is not one of the candidate labels`,
        code: 'custom',
      });
    }
  });
  if (config.candidateLabels.every((label) => config.safeLabels.includes(label))) {
    issues.push({
      path: 'body.candidate_labels',
      message: 'at least one candidate label must not be a safe label',
      code: 'custom',
    });
  }
  return issues;
}

/** The JSON shape of GET and PUT /config. */
export function configView(config: ModerationConfig): z.input<typeof nliConfig> {
  return {
    candidate_labels: [...config.candidateLabels],
    safe_labels: [...config.safeLabels],
    threshold: config.threshold,
    hypothesis_template: config.hypothesisTemplate,
    enabled: config.enabled,
    revision: config.revision,
    updated_at: config.updatedAt.toISOString(),
  };
}
