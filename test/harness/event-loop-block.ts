import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * How long one synchronous call blocks the event loop, in ms, as perf_hooks.monitorEventLoopDelay sees
 * it: the histogram's timer fires late by as much as the call held the thread. The least of `runs`
 * tries is kept, so a busy machine that takes the CPU away once does not fail a linear call; a
 * quadratic one is slow every time.
 */
export async function eventLoopBlockMs(work: () => unknown, runs = 3): Promise<number> {
  let least = Number.POSITIVE_INFINITY;
  for (let run = 0; run < runs && least > 5; run += 1) {
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

/** Adversarial strings of about `length` UTF-16 units for a pattern, from its pieces. */
export function adversarialTexts(length: number, prefixes: readonly string[], delimiters: readonly string[]) {
  const fill = (unit: string) => unit.repeat(Math.max(1, Math.floor(length / unit.length))).slice(0, length);
  const texts = new Map<string, string>();
  for (const prefix of prefixes) {
    // Repetitions of each prefix of the construct ("<", "<a", "<a " ...), and one unclosed construct.
    for (let cut = 1; cut <= prefix.length; cut += 1)
      texts.set(`(${prefix.slice(0, cut)})*`, fill(prefix.slice(0, cut)));
    texts.set(`${prefix} + a*`, prefix + fill('a').slice(prefix.length));
    texts.set(`${prefix} + 1*`, prefix + fill('1').slice(prefix.length));
    texts.set(`${prefix} + space*`, prefix + fill(' ').slice(prefix.length));
  }
  // Alternations of the delimiters: each pair, repeated.
  for (const a of delimiters) for (const b of delimiters) texts.set(`(${a}${b})*`, fill(a + b));
  return [...texts];
}
