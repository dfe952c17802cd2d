import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { processReadinessCheck } from './http-check.js';

// A process's /ready as a plain HTTP server: what it answers next, and how often it was asked.
let server: Server;
let url: string;
let asked = 0;
let answer: { status: number; body: unknown } = { status: 200, body: {} };

beforeAll(async () => {
  server = createServer((_req, res) => {
    asked += 1;
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const dep = (status: string, why?: Record<string, string>) => ({
  status,
  required: false,
  latency_ms: 1,
  ...why,
});

describe('processReadinessCheck: another process as its own /ready reports it', () => {
  it('is up when the process is ready with every dependency up', async () => {
    answer = { status: 200, body: { status: 'ready', dependencies: { postgres: dep('up') } } };
    await expect(processReadinessCheck('nli', url).check()).resolves.toBeUndefined();
  });

  it('is degraded, with the reasons, when the process is ready without some dependency', async () => {
    answer = {
      status: 200,
      body: { status: 'ready', dependencies: { model: dep('degraded', { reason: 'no model' }) } },
    };
    await expect(processReadinessCheck('nli', url).check()).resolves.toEqual({
      degraded: 'model degraded: no model',
    });
  });

  it('is down, with what is down, when the process is not ready or answers no report', async () => {
    answer = {
      status: 503,
      body: { status: 'not_ready', dependencies: { postgres: dep('down', { error: 'refused' }) } },
    };
    await expect(processReadinessCheck('worker', url).check()).rejects.toThrow(
      'not ready: postgres down: refused',
    );
    answer = { status: 502, body: 'bad gateway' };
    await expect(processReadinessCheck('worker', url).check()).rejects.toThrow('without a readiness report');
  });

  it('asks the process at most once a second, however often it is checked', async () => {
    answer = { status: 200, body: { status: 'ready', dependencies: {} } };
    const check = processReadinessCheck('translator', url);
    const before = asked;
    await Promise.all(Array.from({ length: 50 }, () => check.check()));
    await check.check();
    expect(asked - before).toBe(1);
    await sleep(1100);
    await check.check();
    expect(asked - before).toBe(2);
  });
});
