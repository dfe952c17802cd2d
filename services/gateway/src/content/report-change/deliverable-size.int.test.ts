import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ALL_TOPICS, topicName } from '@tp/contracts';
import { connectDatabase, OutboxMessage, type Orm } from '@tp/db';
import { ConfigResourceTypes } from 'kafkajs';

import { createTopics, testKafka, uniquePrefix } from '@tp/test/harness/kafka';
import { startTestGateway, type TestGateway } from '../../../test/gateway-fixture.js';
import { OpenApiContract } from '../../../test/openapi-contract.js';

// Reports that could not travel through Kafka are refused before they are accepted. The topics of
// this file take 64 KiB per message batch (as a cluster configured so would), so the shapes stay small.
const LIMIT = 64 * 1024;
const prefix = uniquePrefix('deliverable');
let gateway: TestGateway;
let orm: Orm;
let contract: OpenApiContract;

beforeAll(async () => {
  const kafka = testKafka('deliverable');
  await createTopics(kafka, prefix);
  const admin = kafka.admin();
  await admin.connect();
  await admin.alterConfigs({
    validateOnly: false,
    resources: ALL_TOPICS.filter((t) => t.name !== 'translation.dlq.v1').map((t) => ({
      type: ConfigResourceTypes.TOPIC,
      name: `${prefix}${t.name}`,
      configEntries: [{ name: 'max.message.bytes', value: String(LIMIT) }],
    })),
  });
  await admin.disconnect();
  gateway = await startTestGateway({ KAFKA_TOPIC_PREFIX: prefix });
  orm = await connectDatabase({ url: gateway.config.DATABASE_URL, poolMax: 2 });
  contract = new OpenApiContract(gateway.openapi);
});

afterAll(async () => {
  await orm?.close(true);
  await gateway?.close();
});

async function report(id: string, fields: Record<string, string>, sourceLang = 'en') {
  const res = await fetch(`${gateway.url}/api/v1/content/catalog/vendor/${id}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.keys.client}` },
    body: JSON.stringify({ source_lang: sourceLang, source_version: 1, fields }),
  });
  const body = (await res.json()) as { error?: string; details?: Record<string, unknown> };
  contract.check('post', '/api/v1/content/{module}/{type}/{id}', res.status, body);
  return { status: res.status, body };
}

const outboxRows = () => orm.em.fork().count(OutboxMessage, {});

describe('POST /api/v1/content: only what can be delivered is accepted', () => {
  it('refuses one huge field whose translation could not travel, naming the field and the limit', async () => {
    const before = await outboxRows();
    const res = await report('v-huge', { name: 'short', body: 'a'.repeat(20_000) });
    expect(res).toMatchObject({
      status: 413,
      body: {
        error: 'CONTENT_TOO_LARGE',
        details: { field: 'body', topic: topicName('translationCompleted', prefix), limit_bytes: LIMIT - 61 },
      },
    });
    expect(res.body.details!.bytes as number).toBeGreaterThan(LIMIT);
    expect(await outboxRows()).toBe(before);
  });

  it('refuses many fields that together make a change larger than the content topic takes', async () => {
    const fields = Object.fromEntries(Array.from({ length: 14 }, (_, i) => [`f${i}`, 'b'.repeat(5000)]));
    const res = await report('v-many', fields);
    expect(res).toMatchObject({
      status: 413,
      body: { error: 'CONTENT_TOO_LARGE', details: { topic: topicName('contentChanged', prefix) } },
    });
    expect(res.body.details).not.toHaveProperty('field');
    // Ten of them fit: accepted.
    expect((await report('v-many', Object.fromEntries(Object.entries(fields).slice(0, 10)))).status).toBe(
      202,
    );
  });

  it('counts CJK text in bytes: the same number of characters passes in ASCII and is refused in Chinese', async () => {
    expect((await report('v-ascii', { name: 'c'.repeat(6000) })).status).toBe(202);
    const res = await report('v-cjk', { name: '翻'.repeat(6000) }, 'zh-CN');
    expect(res).toMatchObject({
      status: 413,
      body: { error: 'CONTENT_TOO_LARGE', details: { field: 'name' } },
    });
  });

  it('accepts later reports as before', async () => {
    expect((await report('v-later', { name: 'still flowing' })).status).toBe(202);
  });
});
