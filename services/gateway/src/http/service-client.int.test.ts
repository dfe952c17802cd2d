import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { z } from 'zod';

import { ServiceClient } from './service-client.js';

// An internal service answering whatever error envelope the test puts in the path.
let server: Server;
let client: ServiceClient;

beforeAll(async () => {
  server = createServer((req, res) => {
    const error = decodeURIComponent((req.url ?? '/').slice(1));
    res.writeHead(error === 'NOT_FOUND' ? 404 : 500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error, message: `answered ${error}` }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  client = new ServiceClient('translator', `http://127.0.0.1:${port}`, 2000, 'TRANSLATION_UNAVAILABLE');
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('ServiceClient errors', () => {
  it("passes one of our error codes through with the service's message", async () => {
    await expect(client.call('/NOT_FOUND', z.unknown())).rejects.toMatchObject({
      code: 'NOT_FOUND',
      httpStatus: 404,
      message: 'answered NOT_FOUND',
    });
  });

  it.each(['constructor', 'toString', '__proto__', 'INTERNAL'])(
    'takes an error named %s, which is not one of our codes, as the service unavailable (503)',
    async (name) => {
      await expect(client.call(`/${name}`, z.unknown())).rejects.toMatchObject({
        code: 'TRANSLATION_UNAVAILABLE',
        httpStatus: 503,
      });
    },
  );
});
