// Latency samples kept whole, for percentiles over every request of several rounds. autocannon's own
// figures are per run and come from an HDR histogram of whole milliseconds; a p99 difference of 5 ms
// judged on those is judged in steps of 1 ms, from the few requests a short round holds.

import { type Agent, request } from 'node:http';

/**
 * The nearest-rank percentile (the smallest sample with at least `percent` % of the samples at or
 * below it) of unsorted samples; NaN when there are none.
 */
export function percentile(samples: readonly number[], percent: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = Float64Array.from(samples).sort();
  const rank = Math.max(1, Math.ceil((percent / 100) * sorted.length));
  return sorted[rank - 1] as number;
}

/** Summary of pooled samples: how many, and their p50, p90 and p99 in ms. */
export interface LatencySummary {
  readonly count: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
}

export function summarize(samples: readonly number[]): LatencySummary {
  return {
    count: samples.length,
    p50: percentile(samples, 50),
    p90: percentile(samples, 90),
    p99: percentile(samples, 99),
  };
}

/** One side of an interleaved comparison: where its requests go and what they carry. */
export interface Side {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** A keep-alive agent of this side's own, so each side reuses its connections. */
  readonly agent: Agent;
  readonly body: (text: string) => string;
}

/** The 2xx latencies of one side, in ms, and how many of its requests failed (non-2xx, error, 30 s). */
export interface SideSamples {
  readonly ms: number[];
  failed: number;
}

/** Milliseconds from a POST's start to the last byte of its answer; NaN when not 2xx or failed. */
export function timedPost(side: Side, text: string): Promise<number> {
  const payload = side.body(text);
  return new Promise((resolve) => {
    const started = performance.now();
    const headers = { ...side.headers, 'content-length': String(Buffer.byteLength(payload)) };
    const req = request(side.url, { method: 'POST', agent: side.agent, headers }, (res) => {
      const ok = (res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300;
      res.on('end', () => resolve(ok ? performance.now() - started : Number.NaN));
      res.on('error', () => resolve(Number.NaN));
      res.resume();
    });
    req.setTimeout(30_000, () => req.destroy());
    req.on('error', () => resolve(Number.NaN));
    req.end(payload);
  });
}

/**
 * Sends `pairs` texts to every side, one side after another (the sides' order reversed on every
 * other text: A B, B A, ...), from `connections` such loops at once, so a slow spell of the machine
 * falls on every side alike. Returns each side's samples, in the sides' order.
 */
export async function interleavedLatency(options: {
  readonly sides: readonly Side[];
  readonly pairs: number;
  readonly connections: number;
  readonly text: () => string;
}): Promise<SideSamples[]> {
  const { sides } = options;
  const results: SideSamples[] = sides.map(() => ({ ms: [], failed: 0 }));
  const forward = sides.map((_, i) => i);
  const backward = [...forward].reverse();
  let next = 0;
  const loop = async () => {
    while (next < options.pairs) {
      const order = next % 2 === 0 ? forward : backward;
      next += 1;
      const text = options.text();
      for (const i of order) {
        const ms = await timedPost(sides[i] as Side, text);
        const result = results[i] as SideSamples;
        if (Number.isNaN(ms)) result.failed += 1;
        else result.ms.push(ms);
      }
    }
  };
  await Promise.all(Array.from({ length: options.connections }, loop));
  return results;
}

/** One request of a paced load: where it goes and what it carries. */
export interface PacedRequest {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** A request's time (ms, from its start to the last byte of its answer), or why it failed. */
export type Timed = { readonly ms: number } | { readonly failure: string };

/** One request timed: 2xx answers give their time; others the status, an error its code. */
export function timedRequest(agent: Agent, { url, method, headers, body }: PacedRequest): Promise<Timed> {
  return new Promise((resolve) => {
    const started = performance.now();
    const sent =
      body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
    const req = request(url, { method, agent, headers: sent }, (res) => {
      const status = res.statusCode ?? 0;
      res.on('end', () =>
        resolve(
          status >= 200 && status < 300 ? { ms: performance.now() - started } : { failure: `HTTP ${status}` },
        ),
      );
      res.on('error', (err: NodeJS.ErrnoException) => resolve({ failure: err.code ?? err.message }));
      res.resume();
    });
    req.setTimeout(30_000, () => req.destroy(new Error('no answer in 30 s')));
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ failure: err.code ?? err.message }));
    req.end(body);
  });
}

/** The 2xx latencies of a paced load (ms) and its failed requests, counted by why. */
export interface PacedSamples {
  readonly ms: number[];
  readonly failures: Map<string, number>;
}

/**
 * An open-loop load at a fixed rate: request i starts at i / `rate` seconds whether or not the
 * earlier ones were answered (an answer that comes late delays no later request, so a slow spell is
 * in the samples, not hidden by fewer requests), for `seconds`. The agent needs sockets enough for
 * the requests out at once.
 */
export async function pacedLatency(options: {
  readonly rate: number;
  readonly seconds: number;
  readonly agent: Agent;
  readonly next: (i: number) => PacedRequest;
}): Promise<PacedSamples> {
  const result: PacedSamples = { ms: [], failures: new Map() };
  const count = Math.round(options.rate * options.seconds);
  const started = performance.now();
  const answers: Promise<void>[] = [];
  for (let i = 0; i < count; i += 1) {
    const due = started + (i * 1000) / options.rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    answers.push(
      timedRequest(options.agent, options.next(i)).then((timed) => {
        if ('ms' in timed) result.ms.push(timed.ms);
        else result.failures.set(timed.failure, (result.failures.get(timed.failure) ?? 0) + 1);
      }),
    );
  }
  await Promise.all(answers);
  return result;
}
