import { describe, expect, it } from '@jest/globals';
import type { ReadinessReport } from '@tp/runtime';

import { allReady, notReadyLine, readyLine, stackProblems, type ServiceLook } from './stack-ready.js';

const dep = (status: 'up' | 'degraded' | 'down', why?: string, required = true) => ({
  status,
  required,
  latency_ms: 1,
  ...(why === undefined ? {} : status === 'degraded' ? { reason: why } : { error: why }),
});
const look = (
  name: string,
  status: ReadinessReport['status'],
  dependencies: ReadinessReport['dependencies'],
) => ({
  name,
  report: { status, dependencies },
});

const stack: ServiceLook[] = [
  look('gateway', 'ready', {
    postgres: dep('up'),
    nli: dep('degraded', 'model degraded: no model', false),
    translator: dep('up', undefined, false),
  }),
  look('translator', 'ready', { postgres: dep('up'), 'engine-consumers': dep('down', 'joining', false) }),
  look('nli', 'ready', {
    model: dep('degraded', 'no model at var/models/nli; `npm run models:pull -- nli` to add one', false),
  }),
  look('worker', 'ready', { postgres: dep('up') }),
];

describe('the stack ready line', () => {
  it('is ready when every process answered ready, whatever its optional dependencies', () => {
    expect(allReady(stack)).toBe(true);
    expect(allReady([...stack, { name: 'late', error: 'ECONNREFUSED' }])).toBe(false);
    expect(allReady([...stack, look('broken', 'not_ready', { postgres: dep('down', 'refused') })])).toBe(
      false,
    );
  });

  it('names what is degraded or down by process, once: a process named as a dependency reports itself', () => {
    expect(stackProblems(stack)).toEqual({
      degraded: ['nli: model degraded: no model at var/models/nli; `npm run models:pull -- nli` to add one'],
      down: ['translator: engine-consumers down: joining'],
    });
  });

  it('gives the gateway and console URLs and each degradation with its reason', () => {
    expect(readyLine('http://127.0.0.1:3000/', stackProblems(stack), 12.345)).toBe(
      '[start] ready in 12.3 s: gateway http://127.0.0.1:3000, console http://127.0.0.1:3000/console; degraded: nli: model degraded: no model at var/models/nli; `npm run models:pull -- nli` to add one | translator: engine-consumers down: joining',
    );
    expect(readyLine('http://h:1', { degraded: [], down: [] }, 1)).toBe(
      '[start] ready in 1.0 s: gateway http://h:1, console http://h:1/console; nothing degraded',
    );
  });

  it('says which processes are not ready, and why, when the stack does not get ready', () => {
    const looks = [
      look('gateway', 'ready', {}),
      look('worker', 'not_ready', { consumers: dep('down', 'worker.planner: starting') }),
      { name: 'nli', error: 'fetch failed' },
    ];
    expect(notReadyLine(looks, 180.4)).toBe(
      '[start] not ready after 180 s: worker: not ready: consumers down: worker.planner: starting | nli: fetch failed',
    );
  });
});
