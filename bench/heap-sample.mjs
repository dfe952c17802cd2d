// Where a process's garbage comes from: a sampling heap profile taken through the inspector of a
// process started with --inspect=127.0.0.1:<port> (for the benches' gateway:
// BENCH_GATEWAY_NODE_FLAGS=--inspect=127.0.0.1:<port>). It keeps the objects that outlived young
// collections and died in a major one (or, with --minor, every allocation), which is what makes
// collections slow; prints the allocating functions by size and writes the profile (.heapprofile,
// opens in Chrome DevTools).
//   node bench/heap-sample.mjs --port 9339 --seconds 60 --out gateway.heapprofile [--minor]
import { writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '9229' },
    seconds: { type: 'string', default: '30' },
    out: { type: 'string', default: 'heap.heapprofile' },
    minor: { type: 'boolean', default: false },
  },
});

/** The inspector's WebSocket address, waiting up to a minute for the process to start. */
async function inspectorUrl() {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    try {
      const [target] = await (await fetch(`http://127.0.0.1:${values.port}/json/list`)).json();
      if (target) return target.webSocketDebuggerUrl;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error(`no inspector on port ${values.port}`);
}

const socket = new WebSocket(await inspectorUrl());
await new Promise((resolve, reject) => {
  socket.addEventListener('open', resolve);
  socket.addEventListener('error', reject);
});
const pending = new Map();
socket.addEventListener('message', (event) => {
  const message = JSON.parse(String(event.data));
  pending.get(message.id)?.(message);
  pending.delete(message.id);
});
let lastId = 0;
const call = (method, params = {}) =>
  new Promise((resolve) => {
    lastId += 1;
    pending.set(lastId, resolve);
    socket.send(JSON.stringify({ id: lastId, method, params }));
  });

await call('HeapProfiler.enable');
await call('HeapProfiler.startSampling', {
  samplingInterval: 4096,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: values.minor,
});
console.error(`sampling for ${values.seconds} s`);
await sleep(Number(values.seconds) * 1000);
const { result } = await call('HeapProfiler.stopSampling');
socket.close();
writeFileSync(values.out, JSON.stringify(result.profile));

const bySite = new Map();
(function walk(node) {
  const { functionName, url, lineNumber } = node.callFrame;
  const site = `${functionName || '(anonymous)'} ${url.split('/').slice(-3).join('/')}:${lineNumber + 1}`;
  bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
  for (const child of node.children) walk(child);
})(result.profile.head);
const total = [...bySite.values()].reduce((sum, size) => sum + size, 0);
console.log(`${(total / 2 ** 20).toFixed(1)} MiB sampled; the 25 largest allocating functions (MiB):`);
for (const [site, size] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
  console.log(`${(size / 2 ** 20).toFixed(1).padStart(8)}  ${site}`);
}
console.log(`profile written to ${values.out}`);
