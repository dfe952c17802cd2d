import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';

/**
 * How long one synchronous call holds the thread, in ms: the CPU time the process spent in it
 * (`process.cpuUsage`), least of `runs` tries after one untimed warm-up call (the compiler's first
 * pass over the code is paid once per process, not per request). On a quiet machine this is what
 * monitorEventLoopDelay sees; on a busy one the histogram also counts the time the process waited for
 * a CPU other processes held, which is the machine's, not the call's. A quadratic call spends its
 * seconds of CPU on every try. The tries stop at the first within `enoughMs`: a call that once ran
 * within the limit is within it, and a busy machine then spends one try per linear call, not five.
 */
export async function threadHoldMs(work: () => unknown, runs = 5, enoughMs = 5): Promise<number> {
  work();
  let least = Number.POSITIVE_INFINITY;
  for (let run = 0; run < runs && least > enoughMs; run += 1) {
    await sleep(20 * (run + 1));
    const before = process.cpuUsage();
    work();
    const spent = process.cpuUsage(before);
    least = Math.min(least, (spent.user + spent.system) / 1000);
  }
  return least;
}

/** Calls confirmed over the limit before the search stops: enough to fail, and a quadratic call is slow. */
const CONFIRMED_ENOUGH = 3;

/** Ordinary prose: what a call costs on text nobody crafted, the yardstick of a busy machine. */
const PROSE = 'The quick brown fox jumps over the lazy dog, then rests. ';

/**
 * A hostile text may cost this many times the same call on prose of its length, when over the limit:
 * linear patterns on the worst texts of the adversarial sets cost up to about 20 times prose (mask,
 * splitText); a quadratic one at 50,000 characters costs seconds, hundreds of times prose.
 */
export const PROSE_RATIO = 25;

/**
 * The texts on which `run` holds the event loop more than `limitMs`, as "name: ms" lines (empty when
 * none does). One pass calls `run` once per text, each call in its own turn of the event loop, under
 * one monitorEventLoopDelay histogram: when its largest delay is within the limit, no call blocked
 * longer. Otherwise the calls whose wall time passed the limit (a synchronous call blocks at most as
 * long as it runs) are measured again one by one by their CPU time (threadHoldMs), slowest first.
 * A busy machine slows every call, prose too: a call counts as over the limit only when it also costs
 * more than PROSE_RATIO times `run` on prose of the same length measured in the same moment, so a
 * linear call passes whatever the load, and a quadratic one (hundreds of times prose at 50,000
 * characters) fails.
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
  // The histogram may have no sample yet around the first call: the wall times decide as well.
  if (histogram.max / 1e6 <= limitMs && suspects.length === 0) return [];
  const slow: string[] = [];
  const proseMsByLength = new Map<number, number>();
  const proseMs = async (length: number): Promise<number> => {
    const prose = PROSE.repeat(Math.ceil(length / PROSE.length)).slice(0, length);
    const ms = proseMsByLength.get(length) ?? (await threadHoldMs(() => run(prose), 5, 0));
    proseMsByLength.set(length, ms);
    return ms;
  };
  for (const [name, text, firstMs] of suspects.sort((a, b) => b[2] - a[2])) {
    if (slow.length >= CONFIRMED_ENOUGH) {
      slow.push(`${name}: ${firstMs.toFixed(0)} ms (first pass)`);
      continue;
    }
    const ms = await threadHoldMs(() => run(text), 5, limitMs);
    if (ms <= limitMs) continue;
    const yardstick = await proseMs(text.length);
    if (ms > PROSE_RATIO * yardstick)
      slow.push(`${name}: ${ms.toFixed(0)} ms (prose of its length: ${yardstick.toFixed(0)} ms)`);
  }
  return slow;
}

/** The largest event-loop delay while `work` runs, in ms (one monitorEventLoopDelay histogram). */
async function loopDelayMs(work: () => Promise<unknown>): Promise<number> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  await work();
  await sleep(3);
  histogram.disable();
  return histogram.max / 1e6;
}

/** The least of up to `tries` loopDelayMs of `work`, stopping at the first within `enoughMs`. */
async function leastLoopDelayMs(work: () => Promise<unknown>, tries: number, enoughMs: number) {
  let least = Number.POSITIVE_INFINITY;
  for (let run = 0; run < tries && least > enoughMs; run += 1)
    least = Math.min(least, await loopDelayMs(work));
  return least;
}

/**
 * The texts on which `send` holds the event loop more than `limitMs`, as "name: ms" lines (empty when
 * none does): callsOverLimit for asynchronous work in this process, such as a request to a gateway
 * and a translator started in-process. Each text's figure is the largest event-loop delay while its
 * request runs, least of three tries (`send` must do the whole work each time: no cache may answer
 * a try). As there, a text over the limit counts only when it also costs more than PROSE_RATIO times
 * `send` on prose of its length, measured in the same moment.
 */
export async function requestsOverLimit(
  send: (text: string) => Promise<unknown>,
  texts: readonly (readonly [string, string])[],
  limitMs: number,
): Promise<string[]> {
  const slow: string[] = [];
  for (const [name, text] of texts) {
    const ms = await leastLoopDelayMs(() => send(text), 3, limitMs);
    if (ms <= limitMs) continue;
    const prose = PROSE.repeat(Math.ceil(text.length / PROSE.length)).slice(0, text.length);
    const yardstick = await leastLoopDelayMs(() => send(prose), 3, 0);
    if (ms > PROSE_RATIO * yardstick)
      slow.push(`${name}: ${ms.toFixed(0)} ms (prose of its length: ${yardstick.toFixed(0)} ms)`);
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
