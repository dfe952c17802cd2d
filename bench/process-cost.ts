// What one request costs a server process, in figures that do not depend on how busy the machine is:
// CPU time (user + system, from /proc/<pid>/stat) and bytes allocated on the JS heap (V8's own
// counts before and after each collection, read through the inspector of a process started with
// --inspect=127.0.0.1:<port>). A busy machine slows every request down but does not make one cost
// more CPU or allocate more bytes, so these compare runs made at different times.
import { execFileSync, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** CPU time a process has used so far (user + system), in microseconds; linux only. */
export async function cpuMicros(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces: the fields counted from after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
  return (ticks / TICKS_PER_SECOND) * 1e6;
}

// Run inside the measured process (Runtime.evaluate): V8's GC profiler gives the heap in use before
// and after every collection, so bytes allocated = growth between collections + growth since the last.
const START = `(() => {
  const v8 = process.getBuiltinModule('v8');
  globalThis.__benchGc?.stop();
  globalThis.__benchGc = new v8.GCProfiler();
  globalThis.__benchGc.start();
  globalThis.__benchHeapAtStart = v8.getHeapStatistics().used_heap_size;
  return true;
})()`;
const STOP = `(() => {
  const v8 = process.getBuiltinModule('v8');
  const now = v8.getHeapStatistics().used_heap_size;
  const stats = globalThis.__benchGc.stop()?.statistics ?? [];
  globalThis.__benchGc = undefined;
  let allocated = 0;
  let last = globalThis.__benchHeapAtStart;
  for (const gc of stats) {
    allocated += gc.beforeGC.heapStatistics.usedHeapSize - last;
    last = gc.afterGC.heapStatistics.usedHeapSize;
  }
  return allocated + now - last;
})()`;

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
  const inspector = target.inspectorPort === undefined ? undefined : await connect(target.inspectorPort);
  await inspector?.evaluate(START);
  const [cpuBefore, started] = [await cpuMicros(target.pid), performance.now()];
  return async (requests) => {
    const seconds = (performance.now() - started) / 1000;
    const cpu = (await cpuMicros(target.pid)) - cpuBefore - idle.cpuMicrosPerSecond * seconds;
    const bytes = inspector
      ? Number(await inspector.evaluate(STOP)) - idle.bytesPerSecond * seconds
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

interface Inspector {
  evaluate(expression: string): Promise<unknown>;
  close(): void;
}

async function connect(port: number): Promise<Inspector> {
  const [target] = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
    webSocketDebuggerUrl: string;
  }[];
  if (!target) throw new Error(`no inspector target on port ${port}`);
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve);
    socket.addEventListener('error', reject);
  });
  const pending = new Map<number, (value: unknown) => void>();
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as {
      id: number;
      result?: { result?: { value?: unknown } };
    };
    pending.get(message.id)?.(message.result?.result?.value);
    pending.delete(message.id);
  });
  let lastId = 0;
  return {
    evaluate: (expression) =>
      new Promise((resolve) => {
        lastId += 1;
        pending.set(lastId, resolve);
        socket.send(
          JSON.stringify({
            id: lastId,
            method: 'Runtime.evaluate',
            params: { expression, returnByValue: true },
          }),
        );
      }),
    close: () => socket.close(),
  };
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
