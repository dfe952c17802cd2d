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
  it('runs the work once for callers with the same key and tells the joiners they shared it', async () => {
    const inFlight = new InFlight<string>(10);
    const job = deferred();

    const first = inFlight.run('k', undefined, job.work);
    const second = inFlight.run('k', undefined, job.work);
    job.finish('done');

    await expect(first).resolves.toEqual({ value: 'done', shared: false, finished: false });
    await expect(second).resolves.toEqual({ value: 'done', shared: true, finished: false });
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
    await expect(second).resolves.toMatchObject({ value: 'done' });
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
    await expect(third).resolves.toEqual({ value: 'again', shared: false, finished: false });
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
    await expect(first).resolves.toMatchObject({ value: 'a' });
    await expect(second).resolves.toEqual({ value: 'b', shared: false, finished: false });
    await expect(third).resolves.toEqual({ value: 'b', shared: false, finished: false });
  });

  it('keeps a finished run joinable until the work it holds settles, and tells a late caller so', async () => {
    const inFlight = new InFlight<string>(10);
    let stored = () => {};
    const storing = new Promise<boolean>((resolve) => (stored = () => resolve(false)));
    let runs = 0;
    const work = async (_signal: AbortSignal, hold: (work: Promise<boolean>) => void) => {
      runs += 1;
      hold(storing);
      return 'done';
    };

    await expect(inFlight.run('k', undefined, work)).resolves.toEqual({
      value: 'done',
      shared: false,
      finished: false,
    });
    expect(inFlight.size).toBe(1);
    await expect(inFlight.run('k', undefined, work)).resolves.toEqual({
      value: 'done',
      shared: true,
      finished: true,
    });
    stored();
    await storing;
    await new Promise((resolve) => setImmediate(resolve));
    expect(inFlight.size).toBe(0);
    await expect(inFlight.run('k', undefined, work)).resolves.toMatchObject({ shared: false });
    expect(runs).toBe(2);
  });

  it('keeps a finished run joinable for the grace once its held work has settled, then forgets it', async () => {
    const inFlight = new InFlight<string>(10, 20);
    let runs = 0;
    const work = async (_signal: AbortSignal, hold: (work: Promise<boolean>) => void) => {
      runs += 1;
      hold(Promise.resolve(true));
      return 'done';
    };

    await inFlight.run('k', undefined, work);
    await new Promise((resolve) => setImmediate(resolve));
    await expect(inFlight.run('k', undefined, work)).resolves.toMatchObject({ finished: true });
    expect(runs).toBe(1);
    while (inFlight.size > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await expect(inFlight.run('k', undefined, work)).resolves.toMatchObject({ finished: false });
    expect(runs).toBe(2);
  });

  it('gives no grace to a run whose held work did not keep the value (nothing cached), or held none', async () => {
    const inFlight = new InFlight<string>(10, 60_000);
    await inFlight.run('not kept', undefined, async (_signal, hold) => {
      hold(Promise.resolve(false));
      return 'done';
    });
    await inFlight.run('nothing held', undefined, async () => 'done');
    await new Promise((resolve) => setImmediate(resolve));
    expect(inFlight.size).toBe(0);
  });

  it('forgets a finished run whose held work fails, as one whose held work succeeds', async () => {
    const inFlight = new InFlight<string>(10);
    await inFlight.run('k', undefined, async (_signal, hold) => {
      hold(Promise.reject(new Error('Redis down')));
      return 'done';
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(inFlight.size).toBe(0);
  });

  it('passes a failure of the work to every caller', async () => {
    const inFlight = new InFlight<string>(10);
    const failing = () => Promise.reject(new Error('engine down'));

    const results = await Promise.allSettled([
      inFlight.run('k', undefined, failing),
      inFlight.run('k', undefined, failing),
    ]);

    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(inFlight.size).toBe(0);
  });
});
