import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/** The README's walkthrough sits between these lines; a test runs its commands and compares. */
export const WALKTHROUGH_START =
  '<!-- walkthrough:start: test/e2e/first-hour.e2e.test.ts runs each command against `npm start` and compares its output -->';
export const WALKTHROUGH_END = '<!-- walkthrough:end -->';

/** One command block of the walkthrough, with the output block that follows it, if any. */
export interface WalkthroughStep {
  readonly commands: string;
  /** Undefined when the README shows no output (the commands print nothing). */
  readonly expected?: string;
}

// not user text: the repository's own README, a fence line at a time
const FENCE = /^```([a-z]{0,10})$/;

/**
 * The walkthrough's steps: each ```bash block, and the ```json or ```text block right after it as its
 * output. Throws when the markers are missing or a block is not closed, so a README edit that breaks
 * the walkthrough fails the test instead of skipping it.
 */
export function walkthroughSteps(readme: string): WalkthroughStep[] {
  const start = readme.indexOf(WALKTHROUGH_START);
  const end = readme.indexOf(WALKTHROUGH_END);
  if (start < 0 || end < start) throw new Error('README.md has no walkthrough markers');
  const lines = readme.slice(start, end).split('\n');
  const blocks: { kind: string; text: string }[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const open = FENCE.exec(lines[i] ?? '');
    if (!open) continue;
    const close = lines.findIndex((line, j) => j > i && line === '```');
    if (close < 0) throw new Error(`a code block of the walkthrough is not closed: ${lines[i]}`);
    blocks.push({ kind: open[1] ?? '', text: lines.slice(i + 1, close).join('\n') });
    i = close;
  }
  const steps: WalkthroughStep[] = [];
  blocks.forEach((block, i) => {
    if (block.kind !== 'bash') return;
    const next = blocks[i + 1];
    const output = next && next.kind !== 'bash' ? next.text : undefined;
    steps.push({ commands: block.text, ...(output === undefined ? {} : { expected: output }) });
  });
  return steps;
}

// not user text: outputs of our own commands in a test
const VARIABLE_PARTS: readonly [RegExp, string][] = [
  [/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>'],
  [/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z/g, '<time>'],
  [/tp_[A-Za-z0-9_-]{43}/g, '<key>'],
  [/"(duration|revision)":\d{1,12}(?:\.\d{1,6})?/g, '"$1":<n>'],
];

/**
 * An output as it is compared: JSON in one line (the README may wrap it), and what differs from run to
 * run (ids, times, keys, durations, revisions) masked.
 */
export function comparable(output: string): string {
  let text = output.trim();
  try {
    text = JSON.stringify(JSON.parse(text));
  } catch {
    // Not JSON: compared as it is.
  }
  return VARIABLE_PARTS.reduce((masked, [pattern, mask]) => masked.replace(pattern, mask), text);
}

/**
 * Runs one step in bash as a user's shell would, with the variables the earlier steps exported
 * (kept in `stateFile`), from `cwd`. `rewrite` maps the README's commands onto the stack under test
 * (its port). Resolves with what the commands printed.
 */
export async function runStep(
  step: WalkthroughStep,
  options: { cwd: string; env: NodeJS.ProcessEnv; stateFile: string; rewrite: (commands: string) => string },
): Promise<string> {
  const script = `set -eo pipefail; source "$TP_WALKTHROUGH_STATE"\n${options.rewrite(step.commands)}\nexport -p > "$TP_WALKTHROUGH_STATE"`;
  const { stdout } = await promisify(execFile)('bash', ['-c', script], {
    cwd: options.cwd,
    env: { ...options.env, TP_WALKTHROUGH_STATE: options.stateFile },
  });
  return stdout;
}
