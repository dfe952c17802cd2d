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
 * When `work` resolves true (the value is now where a later caller finds it), the run stays
 * joinable for the grace too, for callers that looked just before.
 */
export type Hold = (work: Promise<boolean>) => void;

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
  /** Finished runs still joinable, oldest first (they all get the same grace). */
  private readonly retired: { readonly key: string; readonly run: Run<T>; readonly until: number }[] = [];
  private sweep: NodeJS.Timeout | undefined;

  /**
   * @param graceMs how long a finished run stays joinable once its held work has succeeded (0: not at
   * all). Forgotten by one timer for all of them, at most 25 % late.
   */
  constructor(
    private readonly maxRuns: number,
    private readonly graceMs = 0,
  ) {}

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
      // Nothing to keep joinable: held work runs on, and its failure is nobody's to see.
      const value = await work(
        signal ?? new AbortController().signal,
        (more) => void more.catch(() => false),
      );
      return { value, shared: false, finished: false };
    }
    const controller = new AbortController();
    const held: Promise<boolean>[] = [];
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
        void Promise.allSettled(held).then((settled) => {
          const kept = settled.length > 0 && settled.every((s) => s.status === 'fulfilled' && s.value);
          if (kept) this.retire(key, run);
          else this.forget(key, run);
        });
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

  /** A finished run: joinable for the grace, then forgotten. */
  private retire(key: string, run: Run<T>): void {
    if (this.graceMs <= 0) return this.forget(key, run);
    this.retired.push({ key, run, until: performance.now() + this.graceMs });
    this.sweep ??= setTimeout(() => this.forgetRetired(), this.graceMs).unref();
  }

  private forgetRetired(): void {
    this.sweep = undefined;
    const now = performance.now();
    let done = 0;
    for (const { key, run, until } of this.retired) {
      if (until > now) break;
      this.forget(key, run);
      done += 1;
    }
    this.retired.splice(0, done);
    const next = this.retired[0];
    if (!next) return;
    const wait = Math.max(next.until - now, this.graceMs / 4);
    this.sweep = setTimeout(() => this.forgetRetired(), wait).unref();
  }

  private forget(key: string, run: Run<T>): void {
    if (this.runs.get(key) === run) this.runs.delete(key);
  }
}
