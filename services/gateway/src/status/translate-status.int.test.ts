import { randomUUID } from 'node:crypto';
import { createServer, type AddressInfo, type Socket } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { consumerGroup, topicName } from '@tp/contracts';
import { connectDatabase, DeadLetterEntry, OutboxMessage, type Orm } from '@tp/db';
import { Kafka, logLevel } from 'kafkajs';

import {
  startTestTranslator,
  tinyModelsDir,
  type TestTranslator,
} from '../../../translator/test/translator-fixture.js';
import { createTopics, testKafka, uniquePrefix } from '@tp/test/harness/kafka';
import { startTestNli } from '../../../nli/test/nli-fixture.js';
import { startTestGateway, type TestGateway } from '../../test/gateway-fixture.js';
import { OpenApiContract } from '../../test/openapi-contract.js';
import { consumerLag } from '@tp/kafka';
import type { translateStatusSchema } from './translate-status.routes.js';
import type { z } from 'zod';

type Status = z.output<typeof translateStatusSchema>;

const prefix = uniquePrefix('status');
const topic = topicName('translationRequested', prefix);
const group = consumerGroup('engines', prefix);
let models: Awaited<ReturnType<typeof tinyModelsDir>>;
let translator: TestTranslator;
let gateway: TestGateway;
let kafka: Kafka;
let orm: Orm;
let contract: OpenApiContract;

beforeAll(async () => {
  kafka = testKafka('status-int');
  models = await tinyModelsDir();
  [translator] = await Promise.all([
    startTestTranslator({ ...models.settings }),
    createTopics(kafka, prefix),
  ]);
  gateway = await startTestGateway({ TRANSLATOR_URL: translator.url, KAFKA_TOPIC_PREFIX: prefix });
  orm = await connectDatabase({ url: gateway.config.DATABASE_URL, poolMax: 2 });
  contract = new OpenApiContract(gateway.openapi);
});

afterAll(async () => {
  await orm?.close(true);
  await gateway?.close();
  await translator?.close();
  await models?.remove();
  const admin = kafka.admin();
  await admin.connect();
  const mine = (await admin.listTopics()).filter((name) => name.startsWith(prefix));
  await admin.deleteTopics({ topics: mine }).catch(() => undefined);
  await admin.disconnect();
});

async function status(key = gateway.keys.admin): Promise<{ status: number; data: Status }> {
  const res = await fetch(`${gateway.url}/api/admin/translate/status`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const body = (await res.json()) as { data: Status };
  contract.check('get', '/api/admin/translate/status', res.status, body);
  return { status: res.status, data: body.data };
}

describe('GET /api/admin/translate/status', () => {
  it('keeps the process health and adds each engine slot with its health and breaker', async () => {
    const { status: code, data } = await status();
    expect(code).toBe(200);
    expect(data.translator).toMatchObject({ online: true, status: 'ready' });
    expect(data.processes.gateway?.online).toBe(true);
    expect(data.engines.slots.map((s) => [s.slot, s.engine, s.configured, s.health, s.breaker])).toEqual([
      ['variant', 'opencc', true, 'up', 'closed'],
      ['primary', null, false, 'not_configured', null],
      ['fallback', null, false, 'not_configured', null],
      ['local', null, false, 'not_configured', null],
      ['apertium', null, false, 'not_configured', null],
      ['offline', 'offline', true, 'up', 'closed'],
    ]);
    expect(data.engines.offline_models).toEqual([
      expect.objectContaining({
        name: 'opus-mt-zh-en-tiny',
        source: 'zh-CN',
        target: 'en',
        test_model: true,
      }),
    ]);
    expect(data.engines.error).toBeUndefined();
  });

  it('shows the queue length: unpublished outbox rows plus the lag on the request and retry topics', async () => {
    expect((await status()).data.queue).toEqual({
      length: 0,
      outbox: { unpublished: 0, oldest_age_seconds: 0 },
      requested: { topic, consumer_group: group, lag: 0 },
      retry: {
        topic: topicName('translationRequestedRetry', prefix),
        consumer_group: consumerGroup('enginesRetry', prefix),
        lag: 0,
      },
    });

    const producer = kafka.producer();
    await producer.connect();
    await producer.send({
      topic,
      messages: [
        ...[1, 2, 3].map((n) => ({ key: `k${n}`, value: `v${n}`, partition: 0 })),
        ...[4, 5].map((n) => ({ key: `k${n}`, value: `v${n}`, partition: 1 })),
      ],
    });
    await producer.disconnect();
    // No consumer has committed anything: everything kept is waiting.
    expect((await status()).data.queue.requested.lag).toBe(5);

    // The group committed 2 of partition 0: 1 + 2 left.
    const admin = kafka.admin();
    await admin.connect();
    await admin.setOffsets({ groupId: group, topic, partitions: [{ partition: 0, offset: '2' }] });
    await admin.disconnect();
    expect((await status()).data.queue.requested.lag).toBe(3);

    // Requests waiting on the retry topic, and rows the relay has not published, count too.
    const retryProducer = kafka.producer();
    await retryProducer.connect();
    await retryProducer.send({
      topic: topicName('translationRequestedRetry', prefix),
      messages: [{ value: 'r1' }, { value: 'r2' }],
    });
    await retryProducer.disconnect();
    await orm.em.fork().insert(OutboxMessage, {
      eventId: randomUUID(),
      eventType: 'Raw',
      topic: 'x',
      messageKey: null,
      payload: Buffer.from([0]),
      headers: {},
      createdAt: new Date(Date.now() - 90_000),
      attempts: 0,
    });
    const { queue } = (await status()).data;
    expect(queue.retry.lag).toBe(2);
    expect(queue.outbox.unpublished).toBe(1);
    expect(queue.outbox.oldest_age_seconds).toBeGreaterThanOrEqual(90);
    expect(queue.length).toBe(3 + 2 + 1);
    await orm.em.fork().nativeDelete(OutboxMessage, {});
  });

  it('shows the dead-letter count and the five newest entries, newest first', async () => {
    const em = orm.em.fork();
    const base = Date.parse('2026-01-01T00:00:00Z');
    for (let n = 0; n < 7; n += 1) {
      em.create(DeadLetterEntry, {
        eventId: null,
        originalTopic: topic,
        originalPartition: 0,
        originalOffset: n,
        messageKey: null,
        payload: Buffer.from(`poison ${n}`),
        headers: {},
        consumerGroup: group,
        errorCode: n % 2 === 0 ? 'UNDECODABLE' : 'UNSUPPORTED_LANGUAGE',
        errorMessage: `failure ${n}`,
        attempts: 1,
        failedAt: new Date(base + n * 60_000),
      });
    }
    await em.flush();

    const { data } = await status();
    expect(data.dead_letters.count).toBe(7);
    expect(data.dead_letters.latest.map((entry) => entry.error_message)).toEqual([
      'failure 6',
      'failure 5',
      'failure 4',
      'failure 3',
      'failure 2',
    ]);
    expect(data.dead_letters.latest[0]).toEqual({
      id: expect.any(Number),
      original_topic: topic,
      error_code: 'UNDECODABLE',
      error_message: 'failure 6',
      failed_at: '2026-01-01T00:06:00.000Z',
    });
  });

  it('still answers 200 when the translator is down: engines empty, with the reason', async () => {
    const other = await startTestGateway({ KAFKA_TOPIC_PREFIX: prefix });
    try {
      const res = await fetch(`${other.url}/api/admin/translate/status`, {
        headers: { authorization: `Bearer ${other.keys.admin}` },
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { data: Status };
      contract.check('get', '/api/admin/translate/status', res.status, body);
      const { data } = body;
      expect(data.translator.online).toBe(false);
      expect(data.engines).toEqual({ slots: [], offline_models: [], error: expect.any(String) });
      expect(data.queue.requested.lag).toBe(3);
      expect(data.dead_letters).toEqual({ count: 0, latest: [] });
    } finally {
      await other.close();
    }
  });

  it('shows an nli service without a model as it shows itself: ready, the model degraded with the reason; the gateway stays ready', async () => {
    const nli = await startTestNli({ NLI_MODEL_DIR: '' });
    const other = await startTestGateway({
      KAFKA_TOPIC_PREFIX: prefix,
      TRANSLATOR_URL: translator.url,
      NLI_URL: nli.url,
    });
    try {
      const own = (await (await fetch(`${nli.url}/ready`)).json()) as Status['processes'][string];
      expect(own.dependencies.model).toMatchObject({ status: 'degraded', reason: expect.any(String) });
      const res = await fetch(`${other.url}/api/admin/translate/status`, {
        headers: { authorization: `Bearer ${other.keys.admin}` },
      });
      const body = (await res.json()) as { data: Status };
      contract.check('get', '/api/admin/translate/status', res.status, body);
      const { processes } = body.data;
      expect(processes.nli).toMatchObject({ online: true, status: 'ready' });
      expect(processes.nli?.dependencies.model).toMatchObject({
        status: 'degraded',
        reason: own.dependencies.model?.reason,
      });
      expect(processes.gateway?.dependencies.nli).toMatchObject({
        status: 'degraded',
        required: false,
        reason: `model degraded: ${own.dependencies.model?.reason}`,
      });
      expect(processes.gateway?.status).toBe('ready');
      // The public /ready says the same without the reason's text, and stays 200.
      const ready = await fetch(`${other.url}/ready`);
      const terse = (await ready.json()) as { status: string; dependencies: Record<string, object> };
      expect(ready.status).toBe(200);
      expect(terse.status).toBe('ready');
      expect(terse.dependencies.nli).toEqual({
        status: 'degraded',
        required: false,
        latency_ms: expect.any(Number),
      });
    } finally {
      await other.close();
      await nli.close();
    }
  });

  it('shows a process that is not ready as down on the gateway, with what is down', async () => {
    const nli = await startTestNli({ NLI_MODEL_DIR: '', NLI_MODEL_REQUIRED: 'true' });
    const other = await startTestGateway({ KAFKA_TOPIC_PREFIX: prefix, NLI_URL: nli.url });
    try {
      const res = await fetch(`${other.url}/api/admin/translate/status`, {
        headers: { authorization: `Bearer ${other.keys.admin}` },
      });
      const { data } = (await res.json()) as { data: Status };
      expect(data.processes.nli).toMatchObject({ online: true, status: 'not_ready' });
      expect(data.processes.gateway?.dependencies.nli).toMatchObject({
        status: 'down',
        required: false,
        error: 'not ready: model down: no model configured (NLI_MODEL_DIR is empty)',
      });
    } finally {
      await other.close();
      await nli.close();
    }
  });

  it('is for admins only', async () => {
    expect((await status(gateway.keys.client)).status).toBe(403);
  });
});

/** A client that gives up at once (the services' clients retry a connection for about 10 s). */
const quickKafka = (broker: string) =>
  new Kafka({
    brokers: [broker],
    clientId: 'status-int',
    connectionTimeout: 200,
    retry: { retries: 0 },
    logLevel: logLevel.NOTHING,
  });

describe('consumerLag', () => {
  it('gives lag null and the reason when no broker listens', async () => {
    const unreachable = quickKafka('127.0.0.1:9');
    const lag = await consumerLag(unreachable, topic, group, 5000);
    expect(lag).toEqual({
      topic,
      consumer_group: group,
      lag: null,
      error: expect.stringMatching(/ECONNREFUSED|connect/i),
    });
  });

  it('answers at its timeout when the broker accepts connections but never replies', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const mute = quickKafka(`127.0.0.1:${port}`);
      const started = Date.now();
      const lag = await consumerLag(mute, topic, group, 300);
      expect(lag).toEqual({
        topic,
        consumer_group: group,
        lag: null,
        error: 'Kafka did not answer within 300 ms',
      });
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      // The calls still waiting fail now, and the admin client disconnects.
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('gives lag null and the reason for a topic that does not exist', async () => {
    const lag = await consumerLag(kafka, `${prefix}no.such.topic`, group, 5000);
    expect(lag).toMatchObject({ lag: null, error: expect.any(String) });
  });

  it('gives lag null when there is no Kafka client at all', async () => {
    expect(await consumerLag(undefined, topic, group, 1000)).toMatchObject({ lag: null });
  });
});
