import { randomUUID } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HEADERS } from '@tp/contracts';
import { connectDatabase, ContentTranslation, type Orm } from '@tp/db';
import { countDeadLetterOnReport, markContentReportPlanned } from '@tp/pipeline';

import { uniquePrefix } from '@tp/test/harness/kafka';
import { startTestGateway, type TestGateway } from '../../../test/gateway-fixture.js';
import { OpenApiContract } from '../../../test/openapi-contract.js';

// The tracking query through the real gateway on a database of its own. The worker's steps are played
// by the functions the planner and the dead-letter index call (@tp/pipeline), and translations are
// rows as the projection writes them; the whole path runs in test/e2e/pipeline.e2e.test.ts.
let gateway: TestGateway;
let orm: Orm;
let contract: OpenApiContract;
const PATH = '/api/v1/content/tracking/{tracking_id}';

beforeAll(async () => {
  gateway = await startTestGateway({ KAFKA_TOPIC_PREFIX: uniquePrefix('track-report') });
  orm = await connectDatabase({ url: gateway.config.DATABASE_URL, poolMax: 2 });
  contract = new OpenApiContract(gateway.openapi);
});

afterAll(async () => {
  await orm?.close(true);
  await gateway?.close();
});

interface Tracking {
  readonly status: string;
  readonly requests: number;
  readonly translated: number;
  readonly dead_lettered: Record<string, number>;
  readonly [other: string]: unknown;
}

async function send(method: string, path: string, body?: unknown, key = gateway.keys.client) {
  const res = await fetch(`${gateway.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function report(id: string, version = 2): Promise<string> {
  const res = await send('POST', `/api/v1/content/catalog/vendor/${id}`, {
    source_lang: 'zh-CN',
    source_version: version,
    fields: { name: '你好', description: '好吃' },
  });
  expect(res.status).toBe(202);
  return (res.body.data as { tracking_id: string }).tracking_id;
}

async function track(trackingId: string, key = gateway.keys.client) {
  const res = await send('GET', `/api/v1/content/tracking/${trackingId}`, undefined, key);
  contract.check('get', PATH, res.status, res.body);
  return { status: res.status, body: res.body, data: res.body.data as Tracking };
}

/** A translation row as the projection writes it. */
async function translated(entityId: string, field: string, targetLang: string, version: number) {
  await orm.em.fork().insert(ContentTranslation, {
    entityType: 'vendor',
    entityId,
    field,
    targetLang,
    sourceLang: 'zh-CN',
    translatedText: 'x',
    sourceHash: 'h',
    sourceVersion: version,
    engine: 'offline',
    truncated: false,
    lastEventId: randomUUID(),
    createdAt: new Date(),
    updatedAt: new Date(),
  });
}

const REQUESTS = ['name', 'description'].flatMap((field) =>
  ['en', 'de'].map((targetLang) => ({ field, targetLang })),
);

describe('GET /api/v1/content/tracking/{tracking_id}', () => {
  it('follows a change from accepted through planned and translated n of m to done, counting dead letters', async () => {
    const id = await report('v-track');
    expect((await track(id)).data).toMatchObject({
      tracking_id: id,
      kind: 'change',
      module: 'catalog',
      type: 'vendor',
      id: 'v-track',
      source_version: 2,
      status: 'accepted',
      planned_at: null,
      requests: 0,
      translated: 0,
    });

    await markContentReportPlanned(orm.em.fork(), id, REQUESTS);
    expect((await track(id)).data).toMatchObject({ status: 'planned', requests: 4, translated: 0 });

    await translated('v-track', 'name', 'en', 2);
    await translated('v-track', 'name', 'de', 3);
    // Not of this report: an older version, and a language it did not request.
    await translated('v-track', 'description', 'en', 1);
    await translated('v-track', 'description', 'fr', 2);
    expect((await track(id)).data).toMatchObject({ status: 'planned', requests: 4, translated: 2 });

    await countDeadLetterOnReport(orm.em.fork(), { [HEADERS.causationId]: id }, 'TRANSLATION_FAILED');
    expect((await track(id)).data).toMatchObject({
      status: 'planned',
      dead_lettered: { TRANSLATION_FAILED: 1 },
    });

    await translated('v-track', 'description', 'de', 2);
    expect((await track(id)).data).toMatchObject({
      status: 'done',
      requests: 4,
      translated: 3,
      dead_lettered: { TRANSLATION_FAILED: 1 },
      refused_code: null,
    });
  });

  it('shows a report the planner refused as dead-lettered, with its code', async () => {
    const id = await report('v-refused');
    await countDeadLetterOnReport(orm.em.fork(), { [HEADERS.eventId]: id }, 'MODULE_CONFLICT');
    expect((await track(id)).data).toMatchObject({
      status: 'dead_lettered',
      refused_code: 'MODULE_CONFLICT',
    });
  });

  it('follows a deletion to done once the worker applied it', async () => {
    const res = await send('DELETE', '/api/v1/content/catalog/vendor/v-track');
    expect(res.body).toMatchObject({ data: { status: 'accepted' } });
    const id = (res.body.data as { tracking_id: string }).tracking_id;
    expect((await track(id)).data).toMatchObject({
      kind: 'delete',
      status: 'accepted',
      source_version: null,
    });
    await markContentReportPlanned(orm.em.fork(), id, []);
    expect((await track(id)).data).toMatchObject({ kind: 'delete', status: 'done', requests: 0 });
  });

  it("answers 404 TRACKING_NOT_FOUND for another key's report, exactly as for an unknown id", async () => {
    const id = await report('v-mine');
    const other = (await gateway.store.create('client', 'another client')).key;
    const theirs = await track(id, other);
    const unknown = await track('00000000-0000-4000-8000-000000000000');
    expect(theirs).toMatchObject({ status: 404, body: { code: 40405, error: 'TRACKING_NOT_FOUND' } });
    expect(unknown).toMatchObject({ status: 404, body: { error: 'TRACKING_NOT_FOUND' } });
    // Not even the admin key sees it: a report is tracked for the key that made it.
    expect((await track(id, gateway.keys.admin)).status).toBe(404);
    expect((await track(id)).status).toBe(200);
  });

  it('answers 400 VALIDATION_FAILED for a tracking id that is no UUID, and 401 without a key', async () => {
    const res = await track('not-a-uuid');
    expect(res).toMatchObject({ status: 400, body: { error: 'VALIDATION_FAILED' } });
    const anonymous = await fetch(
      `${gateway.url}/api/v1/content/tracking/00000000-0000-4000-8000-000000000000`,
    );
    expect(anonymous.status).toBe(401);
  });
});
