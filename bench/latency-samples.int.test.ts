import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Agent, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { interleavedLatency, type Side } from './latency-samples.js';

// A local server answering /a and /b: it records each request's side and body, and answers 500 to
// the bodies listed in `failing`.
const seen: string[] = [];
const failing = new Set<string>();
let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      seen.push(`${req.url} ${body}`);
      res.statusCode = failing.has(`${req.url} ${body}`) ? 500 : 200;
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
beforeEach(() => {
  seen.length = 0;
  failing.clear();
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const side = (path: string): Side => ({
  url: `${base}${path}`,
  headers: { 'content-type': 'text/plain' },
  agent: new Agent({ keepAlive: true, maxSockets: 1 }),
  body: (text) => `${path}:${text}`,
});
const counter = () => {
  let n = 0;
  return () => String(n++);
};

describe('interleaved latency of two sides', () => {
  it('sends each text to both sides, reversing their order on every other text', async () => {
    const [a, b] = await interleavedLatency({
      sides: [side('/a'), side('/b')],
      pairs: 4,
      connections: 1,
      text: counter(),
    });
    expect(seen).toEqual([
      '/a /a:0',
      '/b /b:0',
      '/b /b:1',
      '/a /a:1',
      '/a /a:2',
      '/b /b:2',
      '/b /b:3',
      '/a /a:3',
    ]);
    expect(a?.ms).toHaveLength(4);
    expect(b?.ms).toHaveLength(4);
    for (const ms of [...(a?.ms ?? []), ...(b?.ms ?? [])]) expect(ms).toBeGreaterThan(0);
  });

  it('counts a non-2xx answer and a refused connection as failed, not as a latency', async () => {
    failing.add('/b /b:1');
    const refused: Side = { ...side('/a'), url: 'http://127.0.0.1:9/a' };
    const [a, b, c] = await interleavedLatency({
      sides: [side('/a'), side('/b'), refused],
      pairs: 3,
      connections: 1,
      text: counter(),
    });
    expect([a?.ms.length, a?.failed]).toEqual([3, 0]);
    expect([b?.ms.length, b?.failed]).toEqual([2, 1]);
    expect([c?.ms.length, c?.failed]).toEqual([0, 3]);
  });

  it('sends exactly `pairs` texts when several loops share them', async () => {
    const [a, b] = await interleavedLatency({
      sides: [side('/a'), side('/b')],
      pairs: 9,
      connections: 3,
      text: counter(),
    });
    expect(a?.ms.length).toBe(9);
    expect(b?.ms.length).toBe(9);
    expect(new Set(seen).size).toBe(18);
  });
});
