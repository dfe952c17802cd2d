import { once } from 'node:events';
import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import { pino } from 'pino';
import { Registry } from 'prom-client';

import { requestContext, requestTracker } from './request-tracking.js';

const lines: Record<string, unknown>[] = [];
let server: Server;
let port: number;
let hanging: () => void = () => undefined;

beforeAll(async () => {
  const logger = pino(
    { base: { service: 'test' }, formatters: { level: (label) => ({ level: label }) } },
    { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const app = express();
  app.use(requestContext(requestTracker(logger, new Registry())));
  app.get('/health', (_req, res) => void res.json({}));
  app.get('/ok', (_req, res) => void res.json({}));
  app.get('/fail', (_req, res) => void res.status(503).json({}));
  app.get('/hang', () => hanging());
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

/** Sends a GET and resolves with the lines logged for it once the server has seen it end. */
async function get(path: string, headers: Record<string, string> = {}, abort = false) {
  const before = lines.length;
  const served = once(server, 'request');
  const req = request({ port, host: '127.0.0.1', path, headers });
  if (abort) {
    hanging = () => req.destroy();
    req.on('error', () => undefined);
    req.end();
  } else {
    req.end();
    const [res] = (await once(req, 'response')) as [NodeJS.ReadableStream];
    res.resume();
    await once(res, 'end');
  }
  const [, res] = (await served) as [unknown, NodeJS.EventEmitter & { closed?: boolean }];
  if (!res.closed) await once(res, 'close');
  return lines.slice(before);
}

describe('the access log', () => {
  it('writes one line per request with its fields, through pino', async () => {
    const logged = await get('/ok?x=1', { 'x-request-id': 'r-1', 'x-correlation-id': 'c-1' });
    expect(logged).toHaveLength(1);
    expect(logged[0]).toEqual({
      level: 'info',
      time: expect.any(Number),
      service: 'test',
      req_id: 'r-1',
      correlation_id: 'c-1',
      method: 'GET',
      url: '/ok?x=1',
      remote: '127.0.0.1',
      status: 200,
      ms: expect.any(Number),
      msg: 'request completed',
    });
  });

  it('gives a request without a well-formed id a new one, also as its correlation id', async () => {
    const [line] = await get('/ok', { 'x-request-id': 'bad id' });
    expect(line?.req_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(line?.correlation_id).toBe(line?.req_id);
  });

  it('writes a 5xx at error and an aborted request at warn', async () => {
    expect(await get('/fail')).toMatchObject([{ level: 'error', status: 503, msg: 'request failed' }]);
    expect(await get('/hang', {}, true)).toMatchObject([{ level: 'warn', msg: 'request aborted' }]);
  });

  it('writes no line for /health', async () => {
    expect(await get('/health')).toEqual([]);
  });
});
