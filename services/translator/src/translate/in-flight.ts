/** What a caller of InFlight.run gets: the value, and whether another caller's run produced it. */
export interface Joined<T> {
  readonly value: T;
  /** True when this caller joined a run that another caller had started. */
  readonly shared: boolean;
  /** True when the run had already produced its value when this caller joined (see `hold`). */
  readonly finished: boolean;
}

/**
 * Keeps a run joinable after its value is known, until `work` settles: the run's caller is answered
 * at once while something the next caller would otherwise miss (the value being cached) completes.
 */
export type Hold = (work: Promise<unknown>) => void;

interface Run<T> {
  readonly promise: Promise<T>;
  readonly controller: AbortController;
  waiters: number;
  /** The value is known; the run is held until its held work settles. */
  finished: boolean;
}

/**
 * Identical concurrent work done once: callers with the same key while a run is in flight wait for
 * that run instead of starting their own. A caller that goes away (its signal aborts) stops waiting
 * alone; the run is aborted only when every caller has gone. At most `maxRuns` keys are held: beyond
 * that, callers run on their own, so the map cannot grow with client input.
 */
export class InFlight<T> {
  private readonly runs = new Map<string, Run<T>>();

  constructor(private readonly maxRuns: number) {}

  /** Runs in flight now. */
  get size(): number {
    return this.runs.size;
  }

  async run(
    key: string,
    signal: AbortSignal | undefined,
    work: (signal: AbortSignal, hold: Hold) => Promise<T>,
  ): Promise<Joined<T>> {
    signal?.throwIfAborted();
    const existing = this.runs.get(key);
    if (existing) return this.wait(key, existing, signal, true);
    if (this.runs.size >= this.maxRuns) {
      const value = await work(signal ?? new AbortController().signal, () => undefined);
      return { value, shared: false, finished: false };
    }
    const controller = new AbortController();
    const held: Promise<unknown>[] = [];
    const run: Run<T> = {
      controller,
      waiters: 0,
      finished: false,
      promise: work(controller.signal, (more) => held.push(more)),
    };
    this.runs.set(key, run);
    run.promise.then(
      () => {
        run.finished = true;
        void Promise.allSettled(held).then(() => this.forget(key, run));
      },
      () => this.forget(key, run),
    );
    return this.wait(key, run, signal, false);
  }

  private wait(key: string, run: Run<T>, signal: AbortSignal | undefined, shared: boolean) {
    const { finished } = run;
    run.waiters += 1;
    return new Promise<Joined<T>>((resolve, reject) => {
      const leave = () => {
        run.waiters -= 1;
        signal?.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        leave();
        reject(signal?.reason);
        // Nobody waits any more: stop the work, and let the next caller start afresh.
        if (run.waiters === 0) {
          this.forget(key, run);
          run.controller.abort(signal?.reason);
        }
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      run.promise.then(
        (value) => {
          if (signal?.aborted) return;
          leave();
          resolve({ value, shared, finished });
        },
        (error: unknown) => {
          if (signal?.aborted) return;
          leave();
          reject(error);
        },
      );
    });
  }

  private forget(key: string, run: Run<T>): void {
    if (this.runs.get(key) === run) this.runs.delete(key);
  }
}
