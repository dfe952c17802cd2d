import { describe, expect, it } from '@jest/globals';

import {
  hypothesisFor,
  multiLabelScores,
  rankLabels,
  singleLabelScores,
  softmax,
  zeroShotScores,
} from './scoring.js';

/** A model that orders its logits [contradiction, neutral, entailment]: entailment is NOT at index 0. */
const INDICES = { contradiction: 0, entailment: 2 };

/** One logits row per label: violence, hate, safe. */
const ROWS = [
  [-1, 0.5, 3], // violence
  [2, 0, -1], // hate
  [0, 1, 1], // safe
];

describe('zero-shot scoring', () => {
  it('single-label: softmax of the entailment logits (index 2) across labels', () => {
    // e^3, e^-1, e^1 over their sum 20.0855 + 0.3679 + 2.7183 = 23.1717
    const scores = singleLabelScores(ROWS, INDICES);
    expect(scores[0]).toBeCloseTo(0.866813, 6);
    expect(scores[1]).toBeCloseTo(0.015876, 6);
    expect(scores[2]).toBeCloseTo(0.11731, 6);
    expect(scores.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
  });

  it('multi-label: per label, softmax over [contradiction, entailment], taking entailment', () => {
    // sigmoid(entailment - contradiction): sigmoid(4), sigmoid(-3), sigmoid(1)
    const scores = multiLabelScores(ROWS, INDICES);
    expect(scores[0]).toBeCloseTo(0.982014, 6);
    expect(scores[1]).toBeCloseTo(0.047426, 6);
    expect(scores[2]).toBeCloseTo(0.731059, 6);
  });

  it('ignores the neutral logit in both modes', () => {
    const neutralChanged = ROWS.map((row) => [row[0] as number, 100, row[2] as number]);
    expect(singleLabelScores(neutralChanged, INDICES)).toEqual(singleLabelScores(ROWS, INDICES));
    expect(multiLabelScores(neutralChanged, INDICES)).toEqual(multiLabelScores(ROWS, INDICES));
  });

  it('scores a single label on its own even when multi_label is false', () => {
    expect(zeroShotScores([[-1, 0.5, 3]], INDICES, false)).toEqual(multiLabelScores([[-1, 0.5, 3]], INDICES));
    expect(zeroShotScores([[-1, 0.5, 3]], INDICES, false)[0]).toBeCloseTo(0.982014, 6);
    expect(zeroShotScores(ROWS, INDICES, false)).toEqual(singleLabelScores(ROWS, INDICES));
    expect(zeroShotScores(ROWS, INDICES, true)).toEqual(multiLabelScores(ROWS, INDICES));
  });

  it('reads the positions it is given (mDeBERTa: entailment 0, contradiction 2)', () => {
    const mdeberta = { entailment: 0, contradiction: 2 };
    const rows = ROWS.map((row) => [...row].reverse());
    expect(singleLabelScores(rows, mdeberta)).toEqual(singleLabelScores(ROWS, INDICES));
    expect(multiLabelScores(rows, mdeberta)).toEqual(multiLabelScores(ROWS, INDICES));
  });

  it('softmax stays finite for large logits', () => {
    expect(softmax([1000, 1000])).toEqual([0.5, 0.5]);
  });
});

describe('rankLabels', () => {
  it('sorts labels by score, best first, keeping the request order on ties', () => {
    expect(rankLabels(['a', 'b', 'c', 'd'], [0.1, 0.4, 0.1, 0.4])).toEqual({
      labels: ['b', 'd', 'a', 'c'],
      scores: [0.4, 0.4, 0.1, 0.1],
    });
  });
});

describe('hypothesisFor', () => {
  it('puts the label in place of {}', () => {
    expect(hypothesisFor('This example is {}.', 'hate speech')).toBe('This example is hate speech.');
  });
});
