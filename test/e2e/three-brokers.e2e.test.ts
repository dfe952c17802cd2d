// The pipeline on a real cluster (issue #15): three KRaft nodes of infra/kafka/kafka.sh on this
// machine, topics with replication factor 3 and min.insync.replicas 2 (from the same settings as
// `npm run topics`), two workers and two translators. The broker that leads the most partitions is
// killed (SIGKILL) while reports keep coming in: every accepted report must end in its rows, none
// lost. Delivery is at least once (a step that lost its leader mid-send may send again), so each
// topic's messages per key and the engine's requests per text are counted as at least one, with the
// duplicates printed; the rows, idempotent, are exact. Slow (three JVMs), so it is a file of its own.
// If the rows do not all arrive, the failure says where each missing one is (request, retry or
// completed topic, outbox row, each group's lag): this is how a kafkajs send that resolved without
// sending some partitions was found (docs/kafka.md).
import { setTimeout as sleep } from 'node:timers/promises';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ALL_TOPICS, topicName } from '@tp/contracts';
import { ContentTranslation, DeadLetterEntry, OutboxMessage } from '@tp/db';
import { createKafka, ensureTopics } from '@tp/kafka';
import kafkajs, { type Kafka } from 'kafkajs';

import { startLibreTranslateDouble, type LibreTranslateDouble } from '../doubles/libretranslate.double.js';
import { uniquePrefix } from '../harness/kafka.js';
import { silentLogger } from '../harness/logger.js';
import { createOwnCluster, type OwnCluster } from '../harness/own-cluster.js';
import { startPipelineStack, type PipelineStack } from '../harness/pipeline-stack.js';
import {
  duplicates,
  engineRequestsPerText,
  messagesPerKey,
  pipelineIdle,
  whereAreTheKeys,
} from '../harness/topic-census.js';
import { waitFor } from '../harness/wait.js';

const prefix = uniquePrefix('cluster');
const TARGETS = ['de', 'fr'];
let cluster: OwnCluster;
let kafka: Kafka;
let libre: LibreTranslateDouble;
let stack: PipelineStack;

beforeAll(async () => {
  cluster = await createOwnCluster(3);
  await cluster.start();
  kafka = createKafka({ brokers: cluster.brokers, clientId: 'cluster-e2e', logger: silentLogger() });
  const admin = kafka.admin();
  await admin.connect();
  await ensureTopics(admin, ALL_TOPICS, prefix, 60_000, { replicationFactor: 3, minInsyncReplicas: 2 });
  await admin.disconnect();
  libre = await startLibreTranslateDouble();
  stack = await startPipelineStack({
    kafkaBrokers: cluster.brokers.join(','),
    topicPrefix: prefix,
    libreTranslateUrl: libre.url,
    workers: 2,
    translators: 2,
  });
  expect(
    (await stack.call('PUT', '/api/admin/translate/config', stack.adminKey, { target_languages: TARGETS }))
      .status,
  ).toBe(200);
}, 300_000);

afterAll(async () => {
  await stack?.stop();
  await libre?.close();
  await cluster?.remove();
}, 120_000);

/** The node that leads the most partitions of this test's topics. */
async function busiestLeader(): Promise<{ node: number; partitions: number }> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const { topics } = await admin.fetchTopicMetadata({
      topics: ALL_TOPICS.map((t) => `${prefix}${t.name}`),
    });
    const led = new Map<number, number>();
    for (const topic of topics)
      for (const p of topic.partitions) led.set(p.leader, (led.get(p.leader) ?? 0) + 1);
    const [node, partitions] = [...led].sort((a, b) => b[1] - a[1])[0]!;
    return { node, partitions };
  } finally {
    await admin.disconnect();
  }
}

describe('a 3-broker cluster losing a broker mid-load', () => {
  it('creates the topics with replication factor 3 and min.insync.replicas 2', async () => {
    const admin = kafka.admin();
    await admin.connect();
    try {
      const name = `${prefix}translation.requested.v1`;
      const { topics } = await admin.fetchTopicMetadata({ topics: [name] });
      expect(topics[0]!.partitions.every((p) => p.replicas.length === 3)).toBe(true);
      const { resources } = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [{ type: kafkajs.ConfigResourceTypes.TOPIC, name, configNames: ['min.insync.replicas'] }],
      });
      expect(resources[0]!.configEntries[0]!.configValue).toBe('2');
    } finally {
      await admin.disconnect();
    }
  });

  it('loses nothing when the busiest leader is killed: every report delivered at least once, every row stored once', async () => {
    const accepted: string[] = [];
    const reportNext = async () => {
      const id = `c-${accepted.length}`;
      const res = await stack.call('POST', `/api/v1/content/catalog/store/${id}`, stack.clientKey, {
        source_lang: 'en',
        source_version: 1,
        fields: { name: `store ${id}`, motto: `motto ${id}` },
      });
      expect(res.status).toBe(202);
      accepted.push(id);
    };
    for (let i = 0; i < 30; i++) await reportNext();
    await waitFor(
      'the first translations',
      async () => (await stack.translations('store')).length > 0,
      60_000,
    );

    const victim = await busiestLeader();
    expect(victim.partitions).toBeGreaterThan(0);
    await cluster.kill(victim.node);
    // The load goes on while the cluster elects new leaders and moves the group coordinators.
    for (let i = 0; i < 30; i++) {
      await reportNext();
      await sleep(100);
    }

    const expected = accepted
      .flatMap((id) =>
        [
          ['motto', `motto ${id}`],
          ['name', `store ${id}`],
        ].flatMap(([field, text]) => TARGETS.map((lang) => `${id} ${field} ${lang} 1 [${lang}] ${text}`)),
      )
      .sort();
    try {
      await waitFor(
        `all ${expected.length} translations`,
        async () => (await stack.translations('store')).length >= expected.length,
        180_000,
        500,
      );
    } catch (err) {
      // What the pipeline was doing when the wait ran out, for the failure message.
      const em = stack.orm.em.fork();
      const unpublishedRows = await em.find(
        OutboxMessage,
        { publishedAt: null },
        { fields: ['topic', 'attempts', 'lastError'] },
      );
      const outbox = unpublishedRows.map(({ topic, attempts, lastError }) => ({
        topic,
        attempts,
        error: lastError,
      }));
      const stored = await stack.translations('store');
      const storedKeys = new Set(stored.map((row) => `store:${row.split(' ').slice(0, 3).join(':')}`));
      const missing = expected
        .map((row) => `store:${row.split(' ').slice(0, 3).join(':')}`)
        .filter((key) => !storedKeys.has(key));
      const where = await whereAreTheKeys(kafka, prefix, missing).catch((e: unknown) => String(e));
      const outboxRows = await em.find(
        OutboxMessage,
        { messageKey: { $in: missing } },
        { fields: ['messageKey', 'id', 'publishedAt', 'attempts'], orderBy: { id: 'asc' } },
      );
      const deadLetters = await em.count(DeadLetterEntry, {});
      throw new Error(
        `${(err as Error).message}: ${stored.length} stored; unpublished outbox ${JSON.stringify(outbox)}; ` +
          `the missing keys by stage ${JSON.stringify(where)}; their outbox rows ${JSON.stringify(outboxRows)}; ` +
          `${deadLetters} dead letters\n${stack.logs()}`,
        { cause: err },
      );
    }
    // Settled, then exactly the expected rows (none missing, none extra, every text right).
    await waitFor('the pipeline idle', () => pipelineIdle(kafka, stack.orm, prefix), 60_000, 500);
    expect(await stack.translations('store')).toEqual(expected);
    await expectEachStepAtLeastOnce(accepted);
    // Sends kafkajs resolved without every partition's acknowledgement, which KafkaProducer sent again.
    const resent = [...stack.processes].map(
      ([name, proc]) => `${name} ${proc.output().split('resolved without an acknowledgement').length - 1}`,
    );
    console.log(`3 brokers: sends resolved without every acknowledgement, by process: ${resent.join(', ')}`);
    const em = stack.orm.em.fork();
    expect(await em.count(OutboxMessage, { publishedAt: null })).toBe(0);
    expect(await em.count(DeadLetterEntry, {})).toBe(0);
    for (const [name, proc] of stack.processes)
      expect({ name, exit: proc.child.exitCode }).toEqual({ name, exit: null });
    // Each row was written by one event only: no duplicate moved a row after its first write.
    const rows = await em.find(ContentTranslation, { entityType: 'store' });
    expect(rows.filter((r) => r.createdAt.getTime() !== r.updatedAt.getTime())).toEqual([]);
  }, 360_000);
});

/**
 * One ContentChanged key per report, one TranslationRequested and TranslationCompleted key per entity
 * and language (carrying its fields), and at least one engine request per text and language; duplicates are printed.
 */
async function expectEachStepAtLeastOnce(ids: readonly string[]): Promise<void> {
  const perField = ids.flatMap((id) =>
    [
      ['motto', `motto ${id}`],
      ['name', `store ${id}`],
    ].flatMap(([, text]) => TARGETS.map((lang) => ({ key: `store:${id}:${lang}`, text, lang }))),
  );
  const fieldKeys = [...new Set(perField.map((f) => f.key))].sort();
  const seen: Record<string, ReturnType<typeof duplicates>> = {};
  for (const [topic, keys] of [
    ['contentChanged', ids.map((id) => `store:${id}`).sort()],
    ['translationRequested', fieldKeys],
    ['translationCompleted', fieldKeys],
  ] as const) {
    const counts = await messagesPerKey(kafka, topicName(topic, prefix));
    expect({ topic, keys: [...counts.keys()].sort() }).toEqual({ topic, keys });
    seen[topic] = duplicates(counts);
  }
  const requests = engineRequestsPerText(libre.requests);
  expect([...requests.keys()].sort()).toEqual(perField.map((f) => `${f.lang} ${f.text}`).sort());
  seen['engine requests'] = duplicates(requests);
  console.log(
    `3 brokers: ${ids.length} reports, ${perField.length} rows; duplicates by step: ${JSON.stringify(seen)}`,
  );
}
