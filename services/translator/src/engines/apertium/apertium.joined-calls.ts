/**
 * Calls of one Apertium direction that come while APy is busy with it wait, and then go together.
 * APy's cost is mostly per request (apertium.batch.ts), and a pipeline translates one request at a
 * time: a request sent while its direction's pipelines are busy only queues inside APy. So at most
 * `maxInFlight` requests per direction are out; the calls that come meanwhile wait here, and when a
 * request ends the oldest waiting calls leave as one (their texts' `size` together up to `maxSize`). A call
 * alone (one caller at a time) leaves at once, as before. Each call gets its own texts' items back;
 * a failure of the joint request fails each call in it.
 */
import type { EngineItem } from '../engine.js';

/** Sends texts of one direction (as few APy requests as they fit) and answers one item per text. */
export type SendTexts = (texts: readonly string[], signal: AbortSignal) => Promise<EngineItem[]>;

interface Call {
  readonly texts: readonly string[];
  readonly signal: AbortSignal;
  resolve(items: EngineItem[]): void;
  reject(error: unknown): void;
}

export class JoinedCalls {
  private readonly waiting: Call[] = [];
  private inFlight = 0;

  constructor(
    private readonly send: SendTexts,
    private readonly maxInFlight: number,
    /** What a text adds to a joint request, and the most a joint request holds. */
    private readonly size: (text: string) => number,
    private readonly maxSize: number,
  ) {}

  /** The items of `texts`, in order; rejects at once when `signal` fires, waiting or in flight. */
  translate(texts: readonly string[], signal: AbortSignal): Promise<EngineItem[]> {
    signal.throwIfAborted();
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const at = this.waiting.indexOf(call);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(signal.reason);
      };
      const settled = () => signal.removeEventListener('abort', onAbort);
      const call: Call = {
        texts,
        signal,
        resolve: (items) => (settled(), resolve(items)),
        reject: (error) => (settled(), reject(error)),
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(call);
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.maxInFlight && this.waiting.length > 0) {
      const calls = this.takeGroup();
      this.inFlight += 1;
      void this.run(calls).finally(() => {
        this.inFlight -= 1;
        this.pump();
      });
    }
  }

  /** The oldest waiting calls while their texts fit `maxSize` together (the first one always). */
  private takeGroup(): Call[] {
    const group: Call[] = [];
    let total = 0;
    for (const call of this.waiting) {
      const size = call.texts.reduce((sum, text) => sum + this.size(text), 0);
      if (group.length > 0 && total + size > this.maxSize) break;
      group.push(call);
      total += size;
    }
    this.waiting.splice(0, group.length);
    return group;
  }

  private async run(calls: readonly Call[]): Promise<void> {
    try {
      const items = await this.send(
        calls.flatMap((call) => call.texts),
        whenAllAborted(calls.map((call) => call.signal)),
      );
      let offset = 0;
      for (const call of calls) {
        call.resolve(items.slice(offset, offset + call.texts.length));
        offset += call.texts.length;
      }
    } catch (error) {
      for (const call of calls) call.reject(error);
    }
  }
}

/** A signal that fires once every one of `signals` has fired (the joint request is nobody's then). */
function whenAllAborted(signals: readonly AbortSignal[]): AbortSignal {
  if (signals.length === 1) return signals[0] as AbortSignal;
  const controller = new AbortController();
  let live = signals.filter((signal) => !signal.aborted).length;
  if (live === 0) controller.abort();
  for (const signal of signals) {
    if (signal.aborted) continue;
    signal.addEventListener(
      'abort',
      () => {
        live -= 1;
        if (live === 0) controller.abort(signal.reason);
      },
      { once: true },
    );
  }
  return controller.signal;
}
