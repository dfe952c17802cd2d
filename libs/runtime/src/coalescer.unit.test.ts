import { describe, expect, it } from '@jest/globals';

import { Coalescer, type ItemOutcome } from './coalescer.js';

/** A batch runner that records its batches and finishes each only when told to. */
function controlledRunner() {
  const batches: number[][] = [];
  const finishers: (() => void)[] = [];
  const run = (items: readonly number[]) => {
    batches.push([...items]);
    return new Promise<readonly ItemOutcome<number>[]>((resolve) =>
      finishers.push(() => resolve(items.map((n) => ({ ok: true, value: n * 10 })))),
    );
  };
  const finishNext = async () => {
    finishers.shift()?.();
    await new Promise((r) => setImmediate(r));
  };
  return { batches, run, finishNext };
}

describe('Coalescer', () => {
  it('runs a lone item at once, and gathers the items that arrive meanwhile into the next batch', async () => {
    const { batches, run, finishNext } = controlledRunner();
    const coalescer = new Coalescer(run, { maxBatch: 10, maxInFlight: 1 });
    const results = [1, 2, 3, 4].map((n) => coalescer.submit(n));
    await new Promise((r) => setImmediate(r));
    expect(batches).toEqual([[1]]);
    await finishNext();
    expect(batches).toEqual([[1], [2, 3, 4]]);
    await finishNext();
    expect(await Promise.all(results)).toEqual([10, 20, 30, 40]);
  });

  it('keeps batches within maxBatch and runs up to maxInFlight batches at once', async () => {
    const { batches, run, finishNext } = controlledRunner();
    const coalescer = new Coalescer(run, { maxBatch: 2, maxInFlight: 2 });
    const results = [1, 2, 3, 4, 5].map((n) => coalescer.submit(n));
    await new Promise((r) => setImmediate(r));
    expect(batches).toEqual([[1], [2]]);
    await finishNext();
    await finishNext();
    await finishNext();
    await finishNext();
    expect(batches).toEqual([[1], [2], [3, 4], [5]]);
    expect(await Promise.all(results)).toEqual([10, 20, 30, 40, 50]);
  });

  it('fails only the items whose outcome is an error, and every item when the batch throws', async () => {
    const perItem = new Coalescer<number, number>(
      async (items) =>
        items.map((n) => (n % 2 ? { ok: true, value: n } : { ok: false, error: new Error(`bad ${n}`) })),
      { maxBatch: 10, maxInFlight: 1 },
    );
    const outcomes = await Promise.allSettled([1, 2, 3].map((n) => perItem.submit(n)));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);

    const throwing = new Coalescer<number, number>(() => Promise.reject(new Error('down')), {
      maxBatch: 10,
      maxInFlight: 1,
    });
    await expect(throwing.submit(1)).rejects.toThrow('down');
    // The failure does not wedge the coalescer.
    await expect(throwing.submit(2)).rejects.toThrow('down');
  });
});
