/** What a batch did for one of its items: a value, or the error of that item alone. */
export type ItemOutcome<R> =
  { readonly ok: true; readonly value: R } | { readonly ok: false; readonly error: unknown };

export interface CoalescerOptions {
  /** Most items one call of `run` receives. */
  readonly maxBatch: number;
  /** Calls of `run` in progress at once; items submitted meanwhile wait and go together. */
  readonly maxInFlight: number;
}

/**
 * Turns concurrent single-item calls into batches: an item submitted while `maxInFlight` batches are
 * running waits, and every waiting item goes in the next batch. At low load a batch is one item (no
 * added latency); under load batches grow with the number of concurrent callers. This is how the
 * projection writes the messages of several partitions with one statement, while each partition still
 * handles its messages one after the other (an offset is committed only after its write).
 */
export class Coalescer<T, R> {
  private waiting: { item: T; resolve: (value: R) => void; reject: (err: unknown) => void }[] = [];
  private inFlight = 0;

  constructor(
    /** Handles a batch; answers one outcome per item, in order (a rejection fails every item). */
    private readonly run: (items: readonly T[]) => Promise<readonly ItemOutcome<R>[]>,
    private readonly options: CoalescerOptions,
  ) {}

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.drain();
    });
  }

  /** Several items that go in one batch (when they fit in `maxBatch`); one outcome each, in order. */
  submitAll(items: readonly T[]): Promise<R>[] {
    const answers = items.map(
      (item) =>
        new Promise<R>((resolve, reject) => {
          this.waiting.push({ item, resolve, reject });
        }),
    );
    this.drain();
    return answers;
  }

  private drain(): void {
    while (this.inFlight < this.options.maxInFlight && this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.options.maxBatch);
      this.inFlight++;
      Promise.resolve()
        .then(() => this.run(batch.map((entry) => entry.item)))
        .then(
          (outcomes) =>
            batch.forEach((entry, i) => {
              const outcome = outcomes[i];
              if (!outcome) entry.reject(new Error('batch answered fewer outcomes than items'));
              else if (outcome.ok) entry.resolve(outcome.value);
              else entry.reject(outcome.error);
            }),
          (err: unknown) => batch.forEach((entry) => entry.reject(err)),
        )
        .finally(() => {
          this.inFlight--;
          this.drain();
        });
    }
  }
}
