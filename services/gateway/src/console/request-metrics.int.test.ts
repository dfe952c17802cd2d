import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { startTestGateway, type TestGateway } from '../../test/gateway-fixture.js';

// GET /api/admin/metrics/requests on the real gateway: the counters the console's live chart reads.

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});

afterAll(async () => {
  await gateway?.close();
});

interface Counters {
  at: string;
  series: { method: string; route: string; status: number; count: number }[];
}

async function counters(key = gateway.keys.admin): Promise<{ status: number; data?: Counters }> {
  const res = await fetch(`${gateway.url}/api/admin/metrics/requests`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const body = (await res.json()) as { data?: Counters };
  return { status: res.status, ...(body.data ? { data: body.data } : {}) };
}

const countOf = (c: Counters | undefined, method: string, route: string, status: number) =>
  c?.series.find((s) => s.method === method && s.route === route && s.status === status)?.count ?? 0;

describe('GET /api/admin/metrics/requests', () => {
  it('counts answered requests per method, route and status', async () => {
    const before = await counters();
    expect(before.status).toBe(200);
    for (let n = 0; n < 3; n += 1) {
      const res = await fetch(`${gateway.url}/api/admin/keys`, {
        headers: { authorization: `Bearer ${gateway.keys.admin}` },
      });
      await res.arrayBuffer();
    }
    const after = await counters();
    const route = '/api/admin/keys';
    expect(countOf(after.data, 'GET', route, 200) - countOf(before.data, 'GET', route, 200)).toBe(3);
    expect(Date.parse(after.data!.at)).toBeGreaterThanOrEqual(Date.parse(before.data!.at));
  });

  it('is for admin keys only', async () => {
    expect((await counters(gateway.keys.client)).status).toBe(403);
    expect((await counters('tp_not_a_key')).status).toBe(401);
  });
});
