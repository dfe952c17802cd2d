import { describe, expect, it } from '@jest/globals';

import { describeGcBetween, parseGcPauses } from './gc-pauses.js';

const exposition = (minor: number, minorSeconds: number) =>
  [
    '# HELP nodejs_gc_duration_seconds Garbage collection duration by kind.',
    '# TYPE nodejs_gc_duration_seconds histogram',
    'nodejs_gc_duration_seconds_bucket{le="0.001",service="gateway",kind="minor"} 1',
    `nodejs_gc_duration_seconds_sum{service="gateway",kind="minor"} ${minorSeconds}`,
    `nodejs_gc_duration_seconds_count{service="gateway",kind="minor"} ${minor}`,
    'nodejs_gc_duration_seconds_sum{service="gateway",kind="major"} 0.024',
    'nodejs_gc_duration_seconds_count{service="gateway",kind="major"} 1',
    'nodejs_gc_duration_seconds_count_total{service="gateway",kind="fake"} 9',
    'process_cpu_seconds_total 12',
  ].join('\n');

describe('GC pauses from /metrics', () => {
  it('reads the count and summed pause of each kind, in ms', () => {
    const pauses = parseGcPauses(exposition(3, 0.0125));
    expect(pauses.get('minor')).toEqual({ count: 3, ms: 12.5 });
    expect(pauses.get('major')).toEqual({ count: 1, ms: 24 });
    expect([...pauses.keys()]).toEqual(['minor', 'major']);
  });

  it('describes only the kinds that collected between two readings', () => {
    const before = parseGcPauses(exposition(3, 0.0125));
    const after = parseGcPauses(exposition(11, 0.078));
    expect(describeGcBetween(before, after)).toBe('minor 8 (65.5 ms)');
    expect(describeGcBetween(after, after)).toBe('none');
  });

  it('counts a kind first seen in the later reading from zero', () => {
    const after = parseGcPauses(exposition(2, 0.002));
    expect(describeGcBetween(new Map(), after)).toBe('minor 2 (2.0 ms), major 1 (24.0 ms)');
  });
});
