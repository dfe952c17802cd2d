// The verdicts of every bench, in one place: each target is checked on the one figure it names (a
// target naming two figures is two verdicts), a figure that is not a number misses, a phase offered at
// a rate that it did not reach says so, and `--check` turns any miss into a non-zero exit code.

/** How a figure must compare with its target. */
export type Comparison = '>=' | '<=' | '<';

export interface Verdict {
  /** What was measured, e.g. "gateway p99 at 3000 req/s". */
  readonly name: string;
  readonly figure: number;
  readonly comparison: Comparison;
  readonly target: number;
  /** Printed after the figure and the target, e.g. " ms" or " req/s". */
  readonly unit: string;
  readonly met: boolean;
}

/** One figure against one target. NaN (no measurement) never meets a target. */
export function judge(
  name: string,
  figure: number,
  comparison: Comparison,
  target: number,
  unit = '',
): Verdict {
  const met =
    Number.isFinite(figure) &&
    (comparison === '>=' ? figure >= target : comparison === '<=' ? figure <= target : figure < target);
  return { name, figure, comparison, target, unit, met };
}

/**
 * A phase offered at `offered` per second that served `achieved` per second: it reached its rate when
 * it served at least (1 - tolerance) of it. A latency read in a phase that did not is not a latency
 * at that rate, and the verdict says so.
 */
export function phaseReached(name: string, offered: number, achieved: number, tolerance = 0.01): Verdict {
  return judge(`${name}: offered rate reached`, achieved, '>=', offered * (1 - tolerance), '/s');
}

/** Successful answers per second of an autocannon run: non-2xx answers, errors and timeouts do not count. */
export function okPerSecond(result: { readonly '2xx': number; readonly duration: number }): number {
  return result.duration > 0 ? result['2xx'] / result.duration : Number.NaN;
}

const round = (value: number) =>
  Number.isInteger(value) ? String(value) : Math.abs(value) >= 100 ? value.toFixed(0) : value.toFixed(3);

export function formatVerdict(verdict: Verdict): string {
  const { name, figure, comparison, target, unit, met } = verdict;
  return `${name}: ${round(figure)}${unit} (target ${comparison} ${round(target)}${unit}): ${met ? 'met' : 'NOT met'}`;
}

/** True when the bench was started with `--check` (e.g. `npm run bench:merge -- --check`). */
export function checkRequested(argv: readonly string[] = process.argv): boolean {
  return argv.slice(2).includes('--check');
}

/** The exit code of a bench: 1 when it was asked to check and a verdict was missed, else 0. */
export function exitCodeOf(verdicts: readonly Verdict[], check: boolean): number {
  return check && verdicts.some((v) => !v.met) ? 1 : 0;
}

/** A bench's verdicts: each printed as it is made, then a summary and the exit code. */
export class Verdicts {
  readonly #all: Verdict[] = [];

  constructor(private readonly print: (line: string) => void = (line) => console.log(line)) {}

  /** Records a verdict and prints it; returns whether it was met. */
  add(verdict: Verdict): boolean {
    this.#all.push(verdict);
    this.print(formatVerdict(verdict));
    return verdict.met;
  }

  check(name: string, figure: number, comparison: Comparison, target: number, unit = ''): boolean {
    return this.add(judge(name, figure, comparison, target, unit));
  }

  get all(): readonly Verdict[] {
    return this.#all;
  }

  /**
   * Prints how many verdicts were met and sets process.exitCode when `--check` was asked and one was
   * missed (the bench still cleans up after itself). Returns the exit code.
   */
  finish(
    argv: readonly string[] = process.argv,
    setExitCode: (code: number) => void = (code) => {
      process.exitCode = code;
    },
  ): number {
    const missed = this.#all.filter((v) => !v.met);
    this.print(
      `verdicts: ${this.#all.length - missed.length} of ${this.#all.length} met` +
        (missed.length ? `; missed: ${missed.map((v) => v.name).join('; ')}` : ''),
    );
    const code = exitCodeOf(this.#all, checkRequested(argv));
    if (code !== 0) setExitCode(code);
    return code;
  }
}
