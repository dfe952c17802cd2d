import { describe, expect, it } from '@jest/globals';

import { judge, riskLevel } from './verdict.js';

const policy = { safeLabels: ['safe content'], threshold: 0.5 };

describe('judge', () => {
  it('flags a text whose top label is unsafe with a score at the threshold', () => {
    const verdict = judge({ labels: ['violence', 'safe content'], scores: [0.5, 0.5] }, policy);
    expect(verdict).toEqual({ isSafe: false, riskLevel: 'medium', label: 'violence', score: 0.5 });
  });

  it('passes a text whose top label is a safe label, however high its score', () => {
    const verdict = judge({ labels: ['safe content', 'violence'], scores: [0.97, 0.03] }, policy);
    expect(verdict).toEqual({ isSafe: true, riskLevel: 'none', label: 'safe content', score: 0.97 });
  });

  it('passes an unsafe top label below the threshold, at low risk when it is above half the threshold', () => {
    const verdict = judge(
      { labels: ['violence', 'hate speech', 'safe content'], scores: [0.49, 0.49, 0.02] },
      policy,
    );
    expect(verdict).toMatchObject({ isSafe: true, riskLevel: 'low', label: 'violence' });
  });

  it('uses the best unsafe score for the risk of a safe verdict under a low threshold', () => {
    const verdict = judge(
      { labels: ['safe content', 'violence'], scores: [0.55, 0.45] },
      { safeLabels: ['safe content'], threshold: 0.4 },
    );
    expect(verdict).toMatchObject({ isSafe: true, riskLevel: 'low', label: 'safe content' });
  });
});

describe('riskLevel', () => {
  it('steps at t/2, t and (1 + t)/2', () => {
    expect(riskLevel(true, 0.24, 0.5)).toBe('none');
    expect(riskLevel(true, 0.25, 0.5)).toBe('low');
    expect(riskLevel(false, 0.74, 0.5)).toBe('medium');
    expect(riskLevel(false, 0.75, 0.5)).toBe('high');
    expect(riskLevel(false, 0.9, 0.8)).toBe('high');
    expect(riskLevel(false, 0.85, 0.8)).toBe('medium');
  });
});
