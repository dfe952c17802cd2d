// What one request costs a server process, in figures that do not depend much on how busy the machine
// is: CPU time (user + system, from /proc/<pid>/stat) and bytes allocated on the JS heap (V8's own
// counts before and after each collection, read through the inspector of a process started with
// --inspect=127.0.0.1:<port>). A busy machine slows every request down but does not make one cost
// much more CPU or allocate more bytes, so these compare runs made at different times. Buffer
// contents (outside the V8 heap) are not counted; the Buffer objects are.
import { type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { processCpuMs } from './bench-support.js';

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
  globalThis.__benchGcProfiler?.stop();
  globalThis.__benchGcProfiler = new v8.GCProfiler();
  globalThis.__benchGcProfiler.start();
  globalThis.__benchHeapAtStart = v8.getHeapStatistics().used_heap_size;
  return true;
})()`;

const END_ALLOCATION_WINDOW = `(() => {
  const v8 = process.getBuiltinModule('node:v8');
  const end = v8.getHeapStatistics().used_heap_size;
  const statistics = globalThis.__benchGcProfiler.stop()?.statistics ?? [];
  globalThis.__benchGcProfiler = undefined;
  let allocated = 0;
  let inUse = globalThis.__benchHeapAtStart;
  for (const gc of statistics) {
    allocated += gc.beforeGC.heapStatistics.usedHeapSize - inUse;
    inUse = gc.afterGC.heapStatistics.usedHeapSize;
  }
  return { allocated: allocated + end - inUse, collections: statistics.length };
})()`;

interface AllocationWindow {
  readonly allocated: number;
  readonly collections: number;
}

/** What `measureProcessCost` found: per request, and the window's totals. */
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
  const cpuBefore = processCpuMs(pid);
  await load();
  const cpuAfter = processCpuMs(pid);
  const heap = await inspector?.evaluate<AllocationWindow>(END_ALLOCATION_WINDOW);
  return {
    requests,
    cpuMicrosPerRequest: ((cpuAfter - cpuBefore) * 1000) / requests,
    bytesPerRequest: heap ? heap.allocated / requests : Number.NaN,
    collections: heap?.collections ?? 0,
  };
}

/** One process under measurement: its pid, and the inspector port it was started with (if any). */
export interface Measured {
  readonly pid: number;
  readonly inspectorPort?: number;
}

/** CPU µs and heap bytes one process spent over a measured stretch, per 2xx answer. */
export interface Cost {
  readonly cpuMicrosPerRequest: number;
  readonly bytesPerRequest: number;
}

/** What a process spends per second doing nothing asked of it (timers, health checks, client heartbeats). */
export interface IdleRate {
  readonly cpuMicrosPerSecond: number;
  readonly bytesPerSecond: number;
}

const NO_IDLE: IdleRate = { cpuMicrosPerSecond: 0, bytesPerSecond: 0 };

/**
 * Starts counting a process's CPU and allocations; the returned function stops and divides by
 * `requests`, less what the process spends idle over the same time (so a round with few requests,
 * on a busy machine, is not charged the process's background work).
 */
export async function startCost(
  target: Measured,
  idle: IdleRate = NO_IDLE,
): Promise<(requests: number) => Promise<Cost>> {
  const inspector =
    target.inspectorPort === undefined ? undefined : await InspectorSession.connect(target.inspectorPort);
  await inspector?.evaluate(START_ALLOCATION_WINDOW);
  const [cpuBefore, started] = [processCpuMs(target.pid) * 1000, performance.now()];
  return async (requests) => {
    const seconds = (performance.now() - started) / 1000;
    const cpu = processCpuMs(target.pid) * 1000 - cpuBefore - idle.cpuMicrosPerSecond * seconds;
    const bytes = inspector
      ? (await inspector.evaluate<AllocationWindow>(END_ALLOCATION_WINDOW)).allocated -
        idle.bytesPerSecond * seconds
      : Number.NaN;
    inspector?.close();
    return { cpuMicrosPerRequest: cpu / requests, bytesPerRequest: bytes / requests };
  };
}

/** What a process spends per second while no request reaches it, over `seconds`. */
export async function idleRate(target: Measured, seconds: number): Promise<IdleRate> {
  const stop = await startCost(target);
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const spent = await stop(seconds);
  return { cpuMicrosPerSecond: spent.cpuMicrosPerRequest, bytesPerSecond: spent.bytesPerRequest };
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

/** "72 µs, 9.1 kB" for a table cell. */
export const formatCost = (cost: Cost): string =>
  `${cost.cpuMicrosPerRequest.toFixed(0)} µs, ${(cost.bytesPerRequest / 1000).toFixed(1)} kB`;

/** Copies a child's stderr to ours, without the inspector's own "Debugger ..." notices. */
export function forwardStderr(child: ChildProcess): void {
  child.stderr?.setEncoding('utf8').on('data', (text: string) => {
    const lines = text.split('\n').filter((line) => line && !/^(Debugger |For help, see)/.test(line));
    if (lines.length > 0) process.stderr.write(`${lines.join('\n')}\n`);
  });
}
