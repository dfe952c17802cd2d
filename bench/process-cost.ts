// What one request costs a server process, in figures that a busy machine does not change much (unlike
// req/s): CPU time (user + system, from /proc/<pid>/stat) and bytes allocated on the V8 heap, each
// over a fixed number of requests, divided by that number.
//
// Bytes allocated are read inside the process through its inspector (started with
// --inspect=127.0.0.1:<port>): V8's GCProfiler records the heap in use before and after every
// collection, so what was allocated over the window is what each collection found in use, less what
// the previous one left, plus the growth since the last. Buffer contents (outside the V8 heap) are
// not counted; the Buffer objects are.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** CPU seconds (user + system) the process has used so far. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces), from field 3 (state) on.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** A Chrome DevTools Protocol session with a process's inspector, for Runtime.evaluate. */
export class InspectorSession {
  readonly #pending = new Map<number, (result: unknown) => void>();
  #lastId = 0;

  private constructor(private readonly socket: WebSocket) {
    socket.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
      if (message.id === undefined) return;
      this.#pending.get(message.id)?.(message.result);
      this.#pending.delete(message.id);
    });
  }

  /** Connects to the inspector on 127.0.0.1:port, waiting up to a minute for it to listen. */
  static async connect(port: number): Promise<InspectorSession> {
    for (let attempt = 0; attempt < 300; attempt += 1) {
      const targets = await fetch(`http://127.0.0.1:${port}/json/list`)
        .then((res) => res.json() as Promise<{ webSocketDebuggerUrl: string }[]>)
        .catch(() => []);
      const url = targets[0]?.webSocketDebuggerUrl;
      if (url) {
        const socket = new WebSocket(url);
        await new Promise((resolve, reject) => {
          socket.addEventListener('open', resolve);
          socket.addEventListener('error', reject);
        });
        return new InspectorSession(socket);
      }
      await sleep(200);
    }
    throw new Error(`no inspector on port ${port}`);
  }

  /** One protocol method's result (e.g. HeapProfiler.startSampling). */
  call<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    this.#lastId += 1;
    const id = this.#lastId;
    return new Promise((resolve) => {
      this.#pending.set(id, (result) => resolve(result as T));
      this.socket.send(JSON.stringify({ id, method, params }));
    });
  }

  /** The value of a JavaScript expression evaluated in the process (JSON-serialisable). */
  async evaluate<T>(expression: string): Promise<T> {
    const { result, exceptionDetails } = await this.call<{
      result?: { value?: T };
      exceptionDetails?: unknown;
    }>('Runtime.evaluate', { expression, returnByValue: true });
    if (exceptionDetails) throw new Error(`evaluation failed: ${JSON.stringify(exceptionDetails)}`);
    return result?.value as T;
  }

  close(): void {
    this.socket.close();
  }
}

const START_ALLOCATION_WINDOW = `(() => {
  const v8 = process.getBuiltinModule('node:v8');
  globalThis.__benchGcProfiler = new v8.GCProfiler();
  globalThis.__benchGcProfiler.start();
  globalThis.__benchHeapAtStart = v8.getHeapStatistics().used_heap_size;
  return true;
})()`;

const END_ALLOCATION_WINDOW = `(() => {
  const v8 = process.getBuiltinModule('node:v8');
  const end = v8.getHeapStatistics().used_heap_size;
  const { statistics } = globalThis.__benchGcProfiler.stop();
  let allocated = 0;
  let inUse = globalThis.__benchHeapAtStart;
  for (const gc of statistics) {
    allocated += gc.beforeGC.heapStatistics.usedHeapSize - inUse;
    inUse = gc.afterGC.heapStatistics.usedHeapSize;
  }
  return { allocated: allocated + end - inUse, collections: statistics.length };
})()`;

/** What `measure` found: per request, and the window's totals. */
export interface ProcessCost {
  readonly requests: number;
  readonly cpuMicrosPerRequest: number;
  /** NaN when the process has no inspector session. */
  readonly bytesPerRequest: number;
  readonly collections: number;
}

/**
 * Runs `load` (which sends `requests` requests and waits for their answers) and returns the process's
 * CPU time and, with an inspector session, the heap bytes it allocated, per request.
 */
export async function measureProcessCost(
  pid: number,
  inspector: InspectorSession | undefined,
  requests: number,
  load: () => Promise<unknown>,
): Promise<ProcessCost> {
  await inspector?.evaluate(START_ALLOCATION_WINDOW);
  const cpuBefore = cpuSeconds(pid);
  await load();
  const cpuAfter = cpuSeconds(pid);
  const heap = await inspector?.evaluate<{ allocated: number; collections: number }>(END_ALLOCATION_WINDOW);
  return {
    requests,
    cpuMicrosPerRequest: ((cpuAfter - cpuBefore) * 1e6) / requests,
    bytesPerRequest: heap ? heap.allocated / requests : Number.NaN,
    collections: heap?.collections ?? 0,
  };
}

interface ProfileNode {
  readonly callFrame: { functionName: string; url: string; lineNumber: number };
  readonly selfSize: number;
  readonly children: readonly ProfileNode[];
}

/**
 * Runs `load` under V8's sampling heap profiler, every allocation included (young and old), writes
 * the profile to `file` (opens in Chrome DevTools) and returns the `top` allocating functions with
 * their share of the sampled bytes.
 */
export async function heapProfile(
  inspector: InspectorSession,
  file: string,
  load: () => Promise<unknown>,
  top = 20,
): Promise<string[]> {
  await inspector.call('HeapProfiler.enable');
  await inspector.call('HeapProfiler.startSampling', {
    samplingInterval: 1024,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  await load();
  const { profile } = await inspector.call<{ profile: { head: ProfileNode } }>('HeapProfiler.stopSampling');
  writeFileSync(file, JSON.stringify(profile));
  const bySite = new Map<string, number>();
  const walk = (node: ProfileNode) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const site = `${functionName || '(anonymous)'} ${url.split('/').slice(-3).join('/')}:${lineNumber + 1}`;
    bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  const total = [...bySite.values()].reduce((sum, size) => sum + size, 0);
  return [...bySite]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([site, size]) => `${((size / total) * 100).toFixed(1).padStart(5)}%  ${site}`);
}
