import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

import { ALL_TOPICS } from '@tp/contracts';
import { ensureTopics } from '@tp/kafka';
import { Kafka, logLevel } from 'kafkajs';

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

/** Polls a URL until it answers (any status) or `timeoutMs` (30 s) pass. */
export async function waitForHttp(url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
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
  throw new Error(`${url} did not answer within ${timeoutMs / 1000} s`);
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

// ---- CPU and memory of processes (Linux /proc) ---------------------------------------------------------
const TICK_MS = 10; // /proc/<pid>/stat counts CPU in clock ticks of 1/100 s (getconf CLK_TCK)

/** The fields of /proc/<pid>/stat after the command name, or undefined when the process is gone. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** CPU milliseconds (user + system) a process's main thread has used so far; 0 when it is gone. */
export function mainThreadCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/**
 * CPU milliseconds each thread of a process has used so far, summed by thread name (/proc's `comm`:
 * Node names V8's helper threads "V8 DefaultWorke", libuv's pool "libuv-worker"); the main thread
 * is left out. Empty when the process is gone.
 */
export function otherThreadsCpuMs(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return byName;
  }
  for (const tid of tasks) {
    if (tid === String(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      byName.set(name, (byName.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) * TICK_MS);
    } catch {
      // the thread ended between the listing and the reading
    }
  }
  return byName;
}

/** CPU milliseconds (user + system, every thread) a process has used so far; 0 when it is gone. */
export function processCpuMs(pid: number): number {
  const fields = statFields(pid);
  return fields ? (Number(fields[11]) + Number(fields[12])) * TICK_MS : 0;
}

/** The process and all its descendants (APy's pipelines are its children). */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = Number(statFields(Number(entry))?.[1]);
    if (!Number.isFinite(parent)) continue;
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const tree: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const next = queue.shift() as number;
    tree.push(next);
    queue.push(...(children.get(next) ?? []));
  }
  return tree;
}

/** CPU milliseconds used so far by a process and its descendants (living ones, and waited-for dead ones). */
export function processTreeCpuMs(pid: number): number {
  return processTree(pid).reduce((sum, member) => {
    const fields = statFields(member);
    if (!fields) return sum;
    const own = Number(fields[11]) + Number(fields[12]);
    const reaped = Number(fields[13]) + Number(fields[14]);
    return sum + (own + reaped) * TICK_MS;
  }, 0);
}

/** A file's text, or '' when it cannot be read. */
const readOr = (path: string): string => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};

/** The entries of a /proc folder (a process's fds), or none when it cannot be read. */
const listOr = (path: string): string[] => {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
};

/** Where a /proc/<pid>/fd entry points, or '' when it is gone. */
const linkOr = (path: string): string => {
  try {
    return readlinkSync(path);
  } catch {
    return '';
  }
};

/** The process listening on a local TCP port (this user must be able to read its /proc/<pid>/fd). */
export function listeningPid(port: number): number | undefined {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readOr(table).split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // local address ends with :PORT, state 0A is LISTEN, column 9 is the socket's inode
      if (cols[1]?.endsWith(`:${hex}`) && cols[3] === '0A' && cols[9]) inodes.add(cols[9]);
    }
  }
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    for (const fd of listOr(`/proc/${entry}/fd`)) {
      const inode = /^socket:\[(\d+)\]$/.exec(linkOr(`/proc/${entry}/fd/${fd}`))?.[1];
      if (inode && inodes.has(inode)) return Number(entry);
    }
  }
  return undefined;
}

/** A process's resident set size in MiB (VmRSS of /proc/<pid>/status), or NaN when it is gone. */
export function rssMiB(pid: number): number {
  try {
    const kib = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kib === undefined ? Number.NaN : Number(kib) / 1024;
  } catch {
    return Number.NaN;
  }
}

// ---- heap of a process through its inspector (node --inspect=127.0.0.1:<port>) ---------------------------
/** Calls DevTools protocol methods on one inspector target, in order. */
async function inspectorCalls(
  port: number,
  calls: readonly { method: string; params?: Record<string, unknown> }[],
): Promise<unknown[]> {
  const [target] = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
    webSocketDebuggerUrl: string;
  }[];
  if (!target) throw new Error(`no inspector target on port ${port}`);
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve, { once: true });
    socket.addEventListener('error', reject, { once: true });
  });
  try {
    const results: unknown[] = [];
    for (const [i, call] of calls.entries()) {
      results.push(
        await new Promise((resolve) => {
          const onMessage = (event: MessageEvent) => {
            const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
            if (message.id !== i + 1) return;
            socket.removeEventListener('message', onMessage);
            resolve(message.result);
          };
          socket.addEventListener('message', onMessage);
          socket.send(JSON.stringify({ id: i + 1, method: call.method, params: call.params ?? {} }));
        }),
      );
    }
    return results;
  } finally {
    socket.close();
  }
}

/**
 * A process's heap used right after a full garbage collection, forced through its inspector
 * (HeapProfiler.collectGarbage: no --expose-gc needed), in MiB.
 */
export async function inspectMemory(port: number): Promise<{ heapUsedMiB: number }> {
  const [, evaluated] = await inspectorCalls(port, [
    { method: 'HeapProfiler.collectGarbage' },
    {
      method: 'Runtime.evaluate',
      params: { expression: 'process.memoryUsage().heapUsed', returnByValue: true },
    },
  ]);
  const value = (evaluated as { result?: { value?: unknown } } | undefined)?.result?.value;
  return { heapUsedMiB: typeof value === 'number' ? value / 2 ** 20 : Number.NaN };
}

// ---- Shared infrastructure of the benches that run the whole service ----------------------------------

/** Creates every topic under `prefix` on the brokers of KAFKA_BROKERS (default 127.0.0.1:9092). */
export async function createBenchTopics(prefix: string): Promise<void> {
  const kafka = new Kafka({
    brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','),
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  await admin.connect();
  await ensureTopics(admin, ALL_TOPICS, prefix);
  await admin.disconnect();
}

/** An APy to translate with: APERTIUM_URL's, or one started here (stopped by `stop`). */
export interface BenchApertium {
  readonly url: string;
  stop(): void;
}

export async function benchApertium(runDir: string): Promise<BenchApertium> {
  const external = process.env.APERTIUM_URL;
  if (external) return { url: external, stop: () => undefined };
  const port = await freePort();
  const script = `${REPO_ROOT}infra/apertium/apertium.sh`;
  const env = { ...process.env, APERTIUM_PORT: String(port), APERTIUM_RUN_DIR: `${REPO_ROOT}.run/${runDir}` };
  execFileSync('bash', [script, 'start'], { env, stdio: 'inherit' });
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => execFileSync('bash', [script, 'stop'], { env, stdio: 'inherit' }),
  };
}

/**
 * The environment of a gateway, translator and worker started by a bench with APy as the one engine:
 * its own topics and Redis keys, no offline model, no nli, rate limits out of the way.
 */
export function apertiumStackEnv(options: {
  databaseUrl: string;
  prefix: string;
  run: string;
  apertiumUrl: string;
  ports: { readonly translator: number; readonly worker: number };
}): NodeJS.ProcessEnv {
  return {
    DATABASE_URL: options.databaseUrl,
    KAFKA_TOPIC_PREFIX: options.prefix,
    REDIS_KEY_PREFIX: `bench:${options.run}:`,
    APERTIUM_URL: options.apertiumUrl,
    MODELS_DIR: `${REPO_ROOT}.run/no-models`,
    TRANSLATOR_URL: `http://127.0.0.1:${options.ports.translator}`,
    WORKER_URL: `http://127.0.0.1:${options.ports.worker}`,
    NLI_URL: 'http://127.0.0.1:9',
    RATE_LIMIT_PUBLIC: '1000000000',
    RATE_LIMIT_PER_KEY: '1000000000',
  };
}
