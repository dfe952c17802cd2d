import { describe, expect, it } from '@jest/globals';

import { InFlight } from './in-flight.js';

/** Work that finishes (every run of it) when the test says, and records the signals it was given. */
function deferred() {
  const pending: ((value: string) => void)[] = [];
  const signals: AbortSignal[] = [];
  const work = (signal: AbortSignal) => {
    signals.push(signal);
    return new Promise<string>((resolve, reject) => {
      pending.push(resolve);
      signal.addEventListener('abort', () => reject(signal.reason));
    });
  };
  const finish = (value: string) => pending.splice(0).forEach((resolve) => resolve(value));
  return { work, finish, signals, runs: () => signals.length };
}

describe('InFlight', () => {
  it('runs the work once for callers with the same key', async () => {
    const inFlight = new InFlight<string>(10);
    const job = deferred();

    const first = inFlight.run('k', undefined, job.work);
    const second = inFlight.run('k', undefined, job.work);
    job.finish('done');

    await expect(first).resolves.toBe('done');
    await expect(second).resolves.toBe('done');
    expect(job.runs()).toBe(1);
    expect(inFlight.size).toBe(0);
  });

  it('lets a caller that goes away stop waiting without stopping the work for the others', async () => {
    const inFlight = new InFlight<string>(10);
    const job = deferred();
    const leaving = new AbortController();

    const first = inFlight.run('k', leaving.signal, job.work);
    const second = inFlight.run('k', undefined, job.work);
    leaving.abort(new Error('client went away'));

    await expect(first).rejects.toThrow('client went away');
    expect(job.signals[0]?.aborted).toBe(false);
    job.finish('done');
    await expect(second).resolves.toBe('done');
  });

  it('aborts the work when every caller has gone, and the next caller starts afresh', async () => {
    const inFlight = new InFlight<string>(10);
    const job = deferred();
    const a = new AbortController();
    const b = new AbortController();

    const first = inFlight.run('k', a.signal, job.work);
    const second = inFlight.run('k', b.signal, job.work);
    a.abort(new Error('a gone'));
    b.abort(new Error('b gone'));

    await expect(Promise.allSettled([first, second])).resolves.toHaveLength(2);
    expect(job.signals[0]?.aborted).toBe(true);
    const third = inFlight.run('k', undefined, job.work);
    job.finish('again');
    await expect(third).resolves.toBe('again');
    expect(job.runs()).toBe(2);
  });

  it('holds at most maxRuns keys: beyond that, callers run on their own', async () => {
    const inFlight = new InFlight<string>(1);
    const held = deferred();
    const other = deferred();

    const first = inFlight.run('a', undefined, held.work);
    const second = inFlight.run('b', undefined, other.work);
    const third = inFlight.run('b', undefined, other.work);

    expect(inFlight.size).toBe(1);
    expect(other.runs()).toBe(2);
    held.finish('a');
    other.finish('b');
    await expect(first).resolves.toBe('a');
    await expect(second).resolves.toBe('b');
    await expect(third).resolves.toBe('b');
  });

  it('forgets a run once it settles: the next caller starts afresh, after a success or a failure', async () => {
    const inFlight = new InFlight<string>(10);
    let runs = 0;
    const fails = async () => {
      runs += 1;
      throw new Error('engine down');
    };
    await expect(inFlight.run('k', undefined, fails)).rejects.toThrow('engine down');
    await expect(inFlight.run('k', undefined, async () => `run ${(runs += 1)}`)).resolves.toBe('run 2');
    expect(inFlight.size).toBe(0);
  });

  it('refuses a caller whose signal has already aborted, without running anything', async () => {
    const inFlight = new InFlight<string>(10);
    const job = deferred();
    const gone = new AbortController();
    gone.abort(new Error('already gone'));
    expect(() => inFlight.run('k', gone.signal, job.work)).toThrow('already gone');
    expect(job.runs()).toBe(0);
  });

  it('keeps a settled run joinable until what it asked to be kept for ends', async () => {
    const inFlight = new InFlight<string>(10);
    let landed = () => {};
    const writing = new Promise<void>((resolve) => (landed = resolve));
    let runs = 0;
    const work = (_signal: AbortSignal, keepUntil: (done: Promise<unknown>) => void) => {
      runs += 1;
      keepUntil(writing);
      return Promise.resolve('done');
    };

    await expect(inFlight.run('k', undefined, work)).resolves.toBe('done');
    await expect(inFlight.run('k', undefined, work)).resolves.toBe('done');
    expect(runs).toBe(1);
    expect(inFlight.size).toBe(1);

    landed();
    await new Promise((resolve) => setImmediate(resolve));
    expect(inFlight.size).toBe(0);
    await expect(inFlight.run('k', undefined, work)).resolves.toBe('done');
    expect(runs).toBe(2);
  });
});
