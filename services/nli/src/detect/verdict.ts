import type { Ranking } from '../classify/scoring.js';

/**
 * How worrying a text is, from the best score of an unsafe label (u) and the threshold (t):
 * - `none`: not a violation and u < t/2;
 * - `low`: not a violation, but u >= t/2 (something unsafe is plausible);
 * - `medium`: a violation with u < (1 + t)/2;
 * - `high`: a violation with u >= (1 + t)/2.
 * With the default t = 0.5 the steps are 0.25, 0.5 and 0.75. `is_safe` and the level never disagree.
 */
export type RiskLevel = 'none' | 'low' | 'medium' | 'high';

export interface ModerationPolicy {
  readonly safeLabels: readonly string[];
  /** nli.violation_threshold, in (0, 1]. */
  readonly threshold: number;
}

export interface Verdict {
  readonly isSafe: boolean;
  readonly riskLevel: RiskLevel;
  /** The top label and its score. */
  readonly label: string;
  readonly score: number;
}

/** The spec's rule: a violation when the top label is not a safe label and its score is at least the threshold. */
export function judge(ranking: Ranking, policy: ModerationPolicy): Verdict {
  const label = ranking.labels[0];
  const score = ranking.scores[0];
  if (label === undefined || score === undefined) throw new Error('a ranking needs at least one label');
  const unsafe = (candidate: string) => !policy.safeLabels.includes(candidate);
  const isSafe = !(unsafe(label) && score >= policy.threshold);
  const topUnsafe = Math.max(0, ...ranking.scores.filter((_, i) => unsafe(ranking.labels[i] as string)));
  return { isSafe, riskLevel: riskLevel(isSafe, topUnsafe, policy.threshold), label, score };
}

export function riskLevel(isSafe: boolean, topUnsafeScore: number, threshold: number): RiskLevel {
  if (!isSafe) return topUnsafeScore >= (1 + threshold) / 2 ? 'high' : 'medium';
  return topUnsafeScore >= threshold / 2 ? 'low' : 'none';
}
