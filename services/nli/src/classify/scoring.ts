/**
 * The Hugging Face zero-shot scoring, as plain functions over logits rows (one row per candidate
 * label, in the model's label order). Label positions come from the model's config, never assumed.
 */

/** Label positions inside a logits row. */
export interface NliIndices {
  readonly entailment: number;
  readonly contradiction: number;
}

/** The zero-shot answer: labels with their scores, best first. */
export interface Ranking {
  readonly labels: string[];
  readonly scores: number[];
}

/** Softmax, shifted by the maximum so large logits do not overflow. */
export function softmax(values: readonly number[]): number[] {
  const max = Math.max(...values);
  const exps = values.map((value) => Math.exp(value - max));
  const sum = exps.reduce((total, value) => total + value, 0);
  return exps.map((value) => value / sum);
}

const at = (row: readonly number[], index: number): number => {
  const value = row[index];
  if (value === undefined) throw new Error(`logits row has no index ${index}`);
  return value;
};

/** Single-label: the labels compete; softmax of each row's entailment logit across all rows. */
export function singleLabelScores(rows: readonly (readonly number[])[], indices: NliIndices): number[] {
  return softmax(rows.map((row) => at(row, indices.entailment)));
}

/** Multi-label: each label alone; softmax over [contradiction, entailment] of its row, take entailment. */
export function multiLabelScores(rows: readonly (readonly number[])[], indices: NliIndices): number[] {
  return rows.map(
    (row) => softmax([at(row, indices.contradiction), at(row, indices.entailment)])[1] as number,
  );
}

/** As the pipeline: one label is always scored on its own, whatever `multiLabel` says. */
export function zeroShotScores(
  rows: readonly (readonly number[])[],
  indices: NliIndices,
  multiLabel: boolean,
): number[] {
  return multiLabel || rows.length === 1 ? multiLabelScores(rows, indices) : singleLabelScores(rows, indices);
}

/** Labels and scores sorted by score, best first; equal scores keep the request's order. */
export function rankLabels(labels: readonly string[], scores: readonly number[]): Ranking {
  const order = labels.map((label, i) => ({ label, score: scores[i] as number }));
  order.sort((a, b) => b.score - a.score);
  return { labels: order.map((entry) => entry.label), scores: order.map((entry) => entry.score) };
}

/** The hypothesis for one label: every `{}` of the template replaced by the label. */
export const hypothesisFor = (template: string, label: string): string => template.split('{}').join(label);
