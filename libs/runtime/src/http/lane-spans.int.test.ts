import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Server } from 'node:http';

import { pino } from 'pino';
import { Registry } from 'prom-client';

import { activeTraceIds, initTracing } from '../tracing.js';
import { createHttpApp } from './app.js';
import { finishHttpApp } from './errors.js';
import { closeServer, listen, type FastLane } from './server.js';

// A process that exports nothing (no OTLP endpoint, no span processor): a request a fast lane answers
// runs without a span unless the caller sent a trace; one it hands to Express gets its span there.
// (initTracing sets process-wide state once; this file is its own module registry.)
initTracing('lane-spans-test', {}, {});

const CALLER_TRACE = 'ab'.repeat(16);
const seen = new Map<string, ReturnType<typeof activeTraceIds>>();

/** Answers /lane itself and hands /handed to Express, noting the trace ids it runs under. */
const lane: FastLane = (req, res) => {
  if (req.url !== '/lane' && req.url !== '/handed') return false;
  seen.set(`lane ${req.url}`, activeTraceIds());
  if (req.url === '/handed') {
    // As the lanes do: hand over later, from another turn of the event loop.
    setImmediate(() => handedTo(req, res));
    return true;
  }
  res.end('lane');
  return true;
};
let handedTo: (...args: Parameters<FastLane>) => void = () => undefined;

let server: Server;
let base: string;

beforeAll(async () => {
  const app = createHttpApp({
    service: 'lane-spans-test',
    logger: pino({ level: 'silent' }),
    metrics: new Registry(),
    checks: [],
  });
  app.get('/handed', (_req, res) => {
    seen.set('express /handed', activeTraceIds());
    res.send('express');
  });
  finishHttpApp(app);
  handedTo = (req, res) => app(req, res);
  server = await listen(app, 0, '127.0.0.1', 'PORT', lane);
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  await closeServer(server);
});

describe('fast-lane requests when nothing is exported', () => {
  it('answers a lane request without a span', async () => {
    expect(await (await fetch(`${base}/lane`)).text()).toBe('lane');
    expect(seen.get('lane /lane')).toEqual({});
  });

  it("runs a lane request in the caller's trace when it sends one", async () => {
    await fetch(`${base}/lane`, { headers: { traceparent: `00-${CALLER_TRACE}-${'cd'.repeat(8)}-01` } });
    expect(seen.get('lane /lane')?.trace_id).toBe(CALLER_TRACE);
  });

  it('gives a request the lane hands to Express a span of its own there', async () => {
    expect(await (await fetch(`${base}/handed`)).text()).toBe('express');
    expect(seen.get('lane /handed')).toEqual({});
    expect(seen.get('express /handed')).toEqual({
      trace_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      span_id: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
  });
});
