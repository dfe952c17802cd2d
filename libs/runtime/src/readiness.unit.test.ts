import { describe, expect, it } from '@jest/globals';

import { checkReadiness, readinessProblems, type DependencyCheck } from './readiness.js';

const up = (name: string, required = true): DependencyCheck => ({
  name,
  required,
  check: async () => undefined,
});
const down = (name: string, required = true): DependencyCheck => ({
  name,
  required,
  check: async () => {
    throw new Error('refused');
  },
});
const degraded = (name: string, required = true): DependencyCheck => ({
  name,
  required,
  check: async () => ({ degraded: 'no model' }),
});
const hanging = (name: string): DependencyCheck => ({
  name,
  required: true,
  check: () => new Promise(() => undefined),
});

describe('checkReadiness', () => {
  it('is ready when every dependency answers', async () => {
    const report = await checkReadiness([up('postgres'), up('kafka')]);
    expect(report.status).toBe('ready');
    expect(Object.keys(report.dependencies)).toEqual(['postgres', 'kafka']);
  });

  it('is not ready when a required dependency is down, and says why', async () => {
    const report = await checkReadiness([up('postgres'), down('kafka')]);
    expect(report.status).toBe('not_ready');
    expect(report.dependencies.kafka).toMatchObject({ status: 'down', error: 'refused' });
  });

  it('stays ready when only an optional dependency is down', async () => {
    const report = await checkReadiness([up('postgres'), down('redis', false)]);
    expect(report.status).toBe('ready');
    expect(report.dependencies.redis?.status).toBe('down');
  });

  it('counts a dependency that does not answer in time as down', async () => {
    const report = await checkReadiness([hanging('postgres')], 50);
    expect(report.dependencies.postgres).toMatchObject({
      status: 'down',
      error: 'postgres did not answer within 50 ms',
    });
  });

  it('stays ready when a required dependency answers degraded, and says why', async () => {
    const report = await checkReadiness([up('postgres'), degraded('model')]);
    expect(report.status).toBe('ready');
    expect(report.dependencies.model).toMatchObject({
      status: 'degraded',
      required: true,
      reason: 'no model',
    });
    expect(report.dependencies.model).not.toHaveProperty('error');
  });
});

describe('readinessProblems', () => {
  it('names each dependency that is not up with its state and why, in order', async () => {
    const report = await checkReadiness([down('kafka', false), up('postgres'), degraded('model', false)]);
    expect(readinessProblems(report)).toEqual(['kafka down: refused', 'model degraded: no model']);
    expect(readinessProblems(await checkReadiness([up('postgres')]))).toEqual([]);
  });
});
