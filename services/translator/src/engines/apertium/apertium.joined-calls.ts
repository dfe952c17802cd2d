/**
 * Calls of one Apertium direction that come while APy is busy with it wait, and then go together.
 * APy's cost is mostly per request (apertium.batch.ts), and a pipeline translates one request at a
 * time: a request sent while its direction's pipelines are busy only queues inside APy. So at most
 * `maxInFlight` requests per direction are out; the calls that come meanwhile wait here, and when a
 * request ends the oldest waiting texts leave as one (their `size` together up to `maxSize`; a call
 * whose texts do not all fit goes on in the next request). A call alone (one caller at a time) leaves
 * at once, as before. Each call gets its own texts' items back; a failure of a joint request fails
 * each call in it.
 */
import type { EngineItem } from '../engine.js';

/** Sends texts of one direction (as few APy requests as they fit) and answers one item per text. */
export type SendTexts = (texts: readonly string[], signal: AbortSignal) => Promise<EngineItem[]>;

interface Call {
  readonly texts: readonly string[];
  readonly signal: AbortSignal;
  /** The items answered so far, by text index. */
  readonly items: EngineItem[];
  /** The first text not yet in a request. */
  next: number;
  /** Requests out with some of its texts. */
  out: number;
  resolve(items: EngineItem[]): void;
  reject(error: unknown): void;
}

/** Texts `start` to `end` of a call, in a joint request. */
interface Part {
  readonly call: Call;
  readonly start: number;
  readonly end: number;
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
    if (texts.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      let settled = false;
      const onAbort = () => call.reject(signal.reason);
      const settle = () => {
        settled = true;
        signal.removeEventListener('abort', onAbort);
        const at = this.waiting.indexOf(call);
        if (at >= 0) this.waiting.splice(at, 1);
      };
      const call: Call = {
        texts,
        signal,
        items: [],
        next: 0,
        out: 0,
        resolve: (items) => {
          if (settled) return;
          settle();
          resolve(items);
        },
        reject: (error) => {
          if (settled) return;
          settle();
          reject(error);
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(call);
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.maxInFlight && this.waiting.length > 0) {
      const parts = this.takeGroup();
      this.inFlight += 1;
      void this.run(parts).finally(() => {
        this.inFlight -= 1;
        this.pump();
      });
    }
  }

  /**
   * The oldest waiting texts while they fit `maxSize` together (the first one always): a call whose
   * texts do not all fit sends the rest in the next request, so each request is as full as it can be.
   */
  private takeGroup(): Part[] {
    const parts: Part[] = [];
    let total = 0;
    let full = false;
    while (!full && this.waiting.length > 0) {
      const call = this.waiting[0] as Call;
      const start = call.next;
      while (call.next < call.texts.length) {
        const size = this.size(call.texts[call.next] as string);
        if ((parts.length > 0 || call.next > start) && total + size > this.maxSize) {
          full = true;
          break;
        }
        total += size;
        call.next += 1;
      }
      if (call.next > start) {
        parts.push({ call, start, end: call.next });
        call.out += 1;
      }
      if (call.next === call.texts.length) this.waiting.shift();
    }
    return parts;
  }

  private async run(parts: readonly Part[]): Promise<void> {
    try {
      const items = await this.send(
        parts.flatMap(({ call, start, end }) => call.texts.slice(start, end)),
        whenAllAborted(parts.map(({ call }) => call.signal)),
      );
      let offset = 0;
      for (const { call, start, end } of parts) {
        for (let i = start; i < end; i += 1) call.items[i] = items[offset + i - start] as EngineItem;
        offset += end - start;
        call.out -= 1;
        if (call.out === 0 && call.next === call.texts.length) call.resolve(call.items);
      }
    } catch (error) {
      for (const { call } of parts) call.reject(error);
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
