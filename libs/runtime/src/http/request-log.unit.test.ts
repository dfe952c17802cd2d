import { Writable } from 'node:stream';

import { describe, expect, it } from '@jest/globals';
import type { Request } from 'express';
import { pino } from 'pino';

import { bindRequestLog, requestLog } from './request-log.js';

/** A request as requestLog sees it, with a root logger whose lines are collected. */
function request(id: string) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  const root = pino({ base: undefined }, sink);
  const req = {
    id,
    headers: { 'x-correlation-id': `c-${id}` },
    app: { get: () => root },
  } as unknown as Request;
  return { req, lines, flushed: () => new Promise((resolve) => setImmediate(resolve)) };
}

describe('requestLog and bindRequestLog', () => {
  it('binds fields added before the logger was made to its lines', async () => {
    const { req, lines, flushed } = request('r1');
    bindRequestLog(req, { api_key_id: 7 });
    requestLog(req).info('after');
    await flushed();
    expect(lines[0]).toMatchObject({ req_id: 'r1', correlation_id: 'c-r1', api_key_id: 7, msg: 'after' });
  });

  it('adds fields to a logger that already exists', async () => {
    const { req, lines, flushed } = request('r2');
    requestLog(req).info('before');
    bindRequestLog(req, { api_key_id: 9 });
    requestLog(req).info('after');
    await flushed();
    expect(lines[0]).not.toHaveProperty('api_key_id');
    expect(lines[1]).toMatchObject({ req_id: 'r2', api_key_id: 9 });
  });

  it('returns the same logger for one request, and keeps requests apart', async () => {
    const first = request('r3');
    const second = request('r4');
    bindRequestLog(first.req, { api_key_id: 1 });
    expect(requestLog(first.req)).toBe(requestLog(first.req));
    requestLog(second.req).info('other');
    await second.flushed();
    expect(second.lines[0]).toMatchObject({ req_id: 'r4' });
    expect(second.lines[0]).not.toHaveProperty('api_key_id');
  });
});
