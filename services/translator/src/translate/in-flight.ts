interface Run<T> {
  readonly promise: Promise<T>;
  readonly controller: AbortController;
  waiters: number;
}

/**
 * The work of a run: its answer. `keepUntil(done)`, called before the answer settles, keeps the run
 * joinable until `done` ends too (so an identical caller coming meanwhile joins the answer rather
 * than starting again before the run's cache write has landed).
 */
export type Work<T> = (signal: AbortSignal, keepUntil: (done: Promise<unknown>) => void) => Promise<T>;

/**
 * Identical concurrent work done once: callers with the same key while a run is in flight wait for
 * that run instead of starting their own; the run is forgotten when it settles. A caller that goes
 * away (its signal aborts) stops waiting alone; the run is aborted only when every caller has gone.
 * A settled run stays joinable while what it asked to be kept for (keepUntil) still runs.
 * At most `maxRuns` keys are held: beyond that, callers run on their own, so the map cannot grow with
 * client input.
 */
export class InFlight<T> {
  private readonly runs = new Map<string, Run<T>>();

  constructor(private readonly maxRuns: number) {}

  /** Runs in flight now. */
  get size(): number {
    return this.runs.size;
  }

  run(key: string, signal: AbortSignal | undefined, work: Work<T>): Promise<T> {
    signal?.throwIfAborted();
    const existing = this.runs.get(key);
    if (existing) return this.wait(key, existing, signal);
    if (this.runs.size >= this.maxRuns) return work(signal ?? new AbortController().signal, () => {});
    const controller = new AbortController();
    let after: Promise<unknown> | undefined;
    const promise = work(controller.signal, (done) => (after = done));
    const run: Run<T> = { controller, waiters: 0, promise };
    this.runs.set(key, run);
    const forget = () => {
      const end = () => this.forget(key, run);
      if (after) after.then(end, end);
      else end();
    };
    promise.then(forget, forget);
    return this.wait(key, run, signal);
  }

  private wait(key: string, run: Run<T>, signal: AbortSignal | undefined): Promise<T> {
    run.waiters += 1;
    return new Promise<T>((resolve, reject) => {
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
          resolve(value);
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
