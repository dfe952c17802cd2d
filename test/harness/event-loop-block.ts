import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';

/**
 * How long one synchronous call blocks the event loop, in ms, as perf_hooks.monitorEventLoopDelay sees
 * it: the histogram's timer fires late by as much as the call held the thread. The least of `runs`
 * tries (spaced out) is kept, so a busy machine that takes the CPU away once does not fail a linear call; a
 * quadratic one is slow every time.
 */
export async function eventLoopBlockMs(work: () => unknown, runs = 5): Promise<number> {
  let least = Number.POSITIVE_INFINITY;
  for (let run = 0; run < runs && least > 5; run += 1) {
    // Idle first, outside the measurement: a process that slept gets the CPU back promptly from the
    // scheduler, so on an oversubscribed machine the try is not cut into slices by other processes.
    await sleep(20 * (run + 1));
    const histogram = monitorEventLoopDelay({ resolution: 1 });
    histogram.enable();
    await sleep(3);
    work();
    await sleep(3);
    histogram.disable();
    least = Math.min(least, histogram.max / 1e6);
  }
  return least;
}

/** Calls confirmed over the limit before the search stops: enough to fail, and a quadratic call is slow. */
const CONFIRMED_ENOUGH = 3;

/**
 * The texts on which `run` holds the event loop more than `limitMs`, as "name: ms" lines (empty when
 * none does). One pass calls `run` once per text, each call in its own turn of the event loop, under
 * one monitorEventLoopDelay histogram: when its largest delay is within the limit, no call blocked
 * longer. Otherwise the calls whose wall time passed the limit (a synchronous call blocks at most as
 * long as it runs) are measured again one by one (eventLoopBlockMs, least of five), slowest first, so
 * a moment the busy machine gave the CPU to another process does not fail a linear call.
 */
export async function callsOverLimit(
  run: (text: string) => unknown,
  texts: readonly (readonly [string, string])[],
  limitMs: number,
): Promise<string[]> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  const suspects: [string, string, number][] = [];
  histogram.enable();
  for (const [name, text] of texts) {
    await nextTurn();
    const start = performance.now();
    run(text);
    const ms = performance.now() - start;
    if (ms > limitMs) suspects.push([name, text, ms]);
  }
  await sleep(3);
  histogram.disable();
  if (histogram.max / 1e6 <= limitMs) return [];
  const slow: string[] = [];
  for (const [name, text, firstMs] of suspects.sort((a, b) => b[2] - a[2])) {
    if (slow.length >= CONFIRMED_ENOUGH) {
      slow.push(`${name}: ${firstMs.toFixed(0)} ms (first pass)`);
      continue;
    }
    const ms = await eventLoopBlockMs(() => run(text));
    if (ms > limitMs) slow.push(`${name}: ${ms.toFixed(0)} ms`);
  }
  return slow;
}

/**
 * Adversarial strings of about `length` UTF-16 units for a pattern, from its pieces, each text once
 * (named after the first shape that gave it).
 */
export function adversarialTexts(
  length: number,
  prefixes: readonly string[],
  delimiters: readonly string[],
): [string, string][] {
  const fill = (unit: string) => unit.repeat(Math.max(1, Math.floor(length / unit.length))).slice(0, length);
  const texts = new Map<string, string>();
  const add = (name: string, text: string) => {
    if (!texts.has(text)) texts.set(text, name);
  };
  for (const prefix of prefixes) {
    // Repetitions of each prefix of the construct ("<", "<a", "<a " ...), and one unclosed construct.
    for (let cut = 1; cut <= prefix.length; cut += 1)
      add(`(${prefix.slice(0, cut)})*`, fill(prefix.slice(0, cut)));
    add(`${prefix} + a*`, prefix + fill('a').slice(prefix.length));
    add(`${prefix} + 1*`, prefix + fill('1').slice(prefix.length));
    add(`${prefix} + space*`, prefix + fill(' ').slice(prefix.length));
  }
  // Alternations of the delimiters: each pair, repeated.
  for (const a of delimiters) for (const b of delimiters) add(`(${a}${b})*`, fill(a + b));
  return [...texts].map(([text, name]) => [name, text]);
}
