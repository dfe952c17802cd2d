import { describe, expect, it } from '@jest/globals';

import {
  checkRequested,
  exitCodeOf,
  formatVerdict,
  judge,
  okPerSecond,
  phaseReached,
  Verdicts,
} from './verdict.js';

describe('a bench verdict', () => {
  it('meets a lower bound at or above it and misses below', () => {
    expect(judge('rps', 2000, '>=', 2000).met).toBe(true);
    expect(judge('rps', 1999.9, '>=', 2000).met).toBe(false);
  });

  it('meets an upper bound at or below it, and a strict one only below', () => {
    expect(judge('p99', 10, '<=', 10).met).toBe(true);
    expect(judge('p99', 10.1, '<=', 10).met).toBe(false);
    expect(judge('p99', 1, '<', 1).met).toBe(false);
    expect(judge('p99', 0.999, '<', 1).met).toBe(true);
  });

  it('misses when the figure is not a number (nothing was measured)', () => {
    expect(judge('p99', Number.NaN, '<=', 10).met).toBe(false);
    expect(judge('rps', Number.NaN, '>=', 0).met).toBe(false);
    expect(judge('rps', Infinity, '>=', 0).met).toBe(false);
  });

  it('prints the figure, the target and the outcome', () => {
    expect(formatVerdict(judge('gateway p99', 12, '<=', 10, ' ms'))).toBe(
      'gateway p99: 12 ms (target <= 10 ms): NOT met',
    );
    expect(formatVerdict(judge('drain', 2345.678, '>=', 2000, '/s'))).toBe(
      'drain: 2346/s (target >= 2000/s): met',
    );
  });
});

describe('a phase offered at a rate', () => {
  it('reached its rate when it served at least 99% of it', () => {
    expect(phaseReached('paced', 3000, 2970).met).toBe(true);
    expect(phaseReached('paced', 3000, 2969).met).toBe(false);
  });

  it('names the phase in its verdict', () => {
    expect(formatVerdict(phaseReached('latency phase at 500/s', 500, 300))).toBe(
      'latency phase at 500/s: offered rate reached: 300/s (target >= 495/s): NOT met',
    );
  });
});

describe('throughput of an autocannon run', () => {
  it('counts only 2xx answers', () => {
    expect(okPerSecond({ '2xx': 900, duration: 3 })).toBe(300);
  });

  it('is not a number for a run that lasted no time', () => {
    expect(okPerSecond({ '2xx': 10, duration: 0 })).toBeNaN();
  });
});

describe('the exit code of a bench', () => {
  const met = judge('a', 1, '>=', 1);
  const missed = judge('b', 0, '>=', 1);

  it('is read from --check among the arguments after the script', () => {
    expect(checkRequested(['node', 'bench.ts', '--check'])).toBe(true);
    expect(checkRequested(['node', 'bench.ts'])).toBe(false);
    expect(checkRequested(['--check', 'bench.ts'])).toBe(false);
  });

  it('is 1 only when checking and a verdict was missed', () => {
    expect(exitCodeOf([met, missed], true)).toBe(1);
    expect(exitCodeOf([met, met], true)).toBe(0);
    expect(exitCodeOf([met, missed], false)).toBe(0);
  });

  it('is set by finish, which prints a summary naming the missed verdicts', () => {
    const lines: string[] = [];
    const codes: number[] = [];
    const verdicts = new Verdicts((line) => lines.push(line));
    expect(verdicts.check('drain', 1500, '>=', 2000, '/s')).toBe(false);
    expect(verdicts.check('end to end', 2500, '>=', 2000, '/s')).toBe(true);
    expect(verdicts.finish(['node', 'x', '--check'], (code) => codes.push(code))).toBe(1);
    expect(codes).toEqual([1]);
    expect(lines).toEqual([
      'drain: 1500/s (target >= 2000/s): NOT met',
      'end to end: 2500/s (target >= 2000/s): met',
      'verdicts: 1 of 2 met; missed: drain',
    ]);
  });

  it('is left alone by finish when every verdict was met', () => {
    const codes: number[] = [];
    const verdicts = new Verdicts(() => undefined);
    verdicts.check('p99', 5, '<=', 10, ' ms');
    expect(verdicts.finish(['node', 'x', '--check'], (code) => codes.push(code))).toBe(0);
    expect(codes).toEqual([]);
  });
});
