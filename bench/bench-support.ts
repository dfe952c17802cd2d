import { execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Polls a URL until it answers (any status) or 30 s pass. */
export async function waitForHttp(url: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (
      await fetch(url).then(
        () => true,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer within 30 s`);
}

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

/** Creates an API key with the gateway's keys CLI (DATABASE_URL from the environment); returns it. */
export function createApiKey(role: 'client' | 'admin', name: string): string {
  return execFileSync(
    process.execPath,
    [`${REPO_ROOT}services/gateway/dist/keys/keys.cli.js`, 'create', '--role', role, '--name', name],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
  ).trim();
}

/** One autocannon round. */
export interface Run {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly failed: number;
}

/** The median of each figure over the rounds, and every failed request of them. */
export function medianOfRounds(rounds: readonly Run[]): Run {
  return {
    rps: median(rounds.map((r) => r.rps)),
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    failed: rounds.reduce((sum, r) => sum + r.failed, 0),
  };
}

/**
 * Prints the rounds of each target as a Markdown table (req/s of every round, then the medians) and
 * returns each target's medians, in the targets' order.
 */
export function printRoundsTable(labels: readonly string[], runs: readonly (readonly Run[])[]): Run[] {
  console.log('| run | req/s per round | median req/s | median p50 ms | median p99 ms | non-2xx/errors |');
  console.log('|---|---|---|---|---|---|');
  return labels.map((label, i) => {
    const rounds = runs[i] ?? [];
    const row = medianOfRounds(rounds);
    const perRound = rounds.map((r) => Math.round(r.rps)).join(' / ');
    console.log(
      `| ${label} | ${perRound} | ${Math.round(row.rps)} | ${row.p50} | ${row.p99} | ${row.failed} |`,
    );
    return row;
  });
}
