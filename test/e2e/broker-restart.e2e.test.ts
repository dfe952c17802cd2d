// The content pipeline across a Kafka restart: gateway, worker and translator run as processes (as in
// pipeline.e2e.test.ts) on a broker of this file's own, which is stopped while content changes keep
// coming in and started again on the same data. The gateway writes each change to the Postgres
// outbox, so it keeps answering 202 while Kafka is down; once the broker is back, every change must
// end up translated. The guarantee is at-least-once delivery with idempotent effects: a step may
// deliver a message twice (a relay that published but had not marked its row, a consumer that
// handled but had not committed), and the unique key of content_translations absorbs it. So the
// test counts each step: rows exactly once, and messages per key on each topic and engine requests
// per text at least once, with the duplicates it saw printed. The LibreTranslate double answers
// `[<target>] <text>`.
import { setTimeout as sleep } from 'node:timers/promises';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { topicName, type TopicKey } from '@tp/contracts';
import { connectDatabase, ContentTranslation, OutboxMessage, type Orm } from '@tp/db';
import { createKafka } from '@tp/kafka';
import type { Kafka } from 'kafkajs';

import { startLibreTranslateDouble, type LibreTranslateDouble } from '../doubles/libretranslate.double.js';
import { createTestDatabase, type TestDatabase } from '../harness/databases.js';
import { createTopics, uniquePrefix } from '../harness/kafka.js';
import { silentLogger } from '../harness/logger.js';
import { createOwnBroker, type OwnBroker } from '../harness/own-broker.js';
import { createKeyWithCli, pipelineEnv } from '../harness/pipeline-services.js';
import { freePort, runService, type ServiceProcess } from '../harness/processes.js';
import { duplicates, engineRequestsPerText, messagesPerKey, pipelineIdle } from '../harness/topic-census.js';
import { waitFor } from '../harness/wait.js';

const prefix = uniquePrefix('restart');
const SERVICES = ['translator', 'worker', 'gateway'] as const;
let broker: OwnBroker;
let kafka: Kafka;
let db: TestDatabase;
let orm: Orm;
let libre: LibreTranslateDouble;
const processes = new Map<string, ServiceProcess>();
let adminKey: string;
let clientKey: string;

const gateway = () => processes.get('gateway')!.url;

async function healthy(proc: ServiceProcess): Promise<boolean> {
  return (await fetch(`${proc.url}/health`).catch(() => null))?.ok === true;
}

/** The state of one entry of a process's /ready, or undefined when it does not answer. */
async function readiness(proc: ServiceProcess, dependency: string): Promise<string | undefined> {
  const res = await fetch(`${proc.url}/ready`).catch(() => null);
  if (!res) return undefined;
  const body = (await res.json()) as { dependencies: Record<string, { status: string }> };
  return body.dependencies[dependency]?.status;
}

/** Waits for `dependency` of a process's /ready to be up; the failure shows the last /ready body. */
async function untilReady(name: string, dependency: string): Promise<void> {
  const proc = processes.get(name)!;
  try {
    await waitFor(
      `${name}'s ${dependency} on /ready`,
      async () => (await readiness(proc, dependency)) === 'up',
      30_000,
    );
  } catch (err) {
    const body = await (await fetch(`${proc.url}/ready`).catch(() => null))?.text();
    throw new Error(`${(err as Error).message}: ${body}\n${proc.output().slice(-3000)}`, { cause: err });
  }
}

const createKey = (role: 'admin' | 'client') => createKeyWithCli(db.url, role);

async function call(method: string, path: string, key: string, body?: unknown) {
  const res = await fetch(`${gateway()}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { data: Record<string, unknown> } };
}

/** The two fields every vendor of this test reports. */
function fieldsOf(id: string): Record<string, string> {
  return { name: `公司${id}`, slogan: `口号${id}` };
}

/** Reports vendor `id` and returns the HTTP status (202 when the change is accepted). */
async function report(id: string): Promise<number> {
  const res = await call('POST', `/api/v1/content/catalog/vendor/${id}`, clientKey, {
    source_lang: 'zh-CN',
    source_version: 1,
    fields: fieldsOf(id),
  });
  return res.status;
}

/** Every stored translation of this test's vendors as `id field lang text`, sorted. */
async function storedTranslations(): Promise<string[]> {
  const rows = await orm.em.fork().find(ContentTranslation, { entityType: 'vendor' });
  return rows.map((r) => `${r.entityId} ${r.field} ${r.targetLang} ${r.translatedText}`).sort();
}

/** Outbox rows (changes, requests, completions) the worker's relay has not published to Kafka yet. */
async function unpublishedOutboxRows(): Promise<number> {
  return orm.em.fork().count(OutboxMessage, { publishedAt: null });
}

/** The last lines each service printed, for a failure message. */
function serviceLogs(): string {
  return [...processes]
    .map(
      ([name, proc]) => `--- ${name} (exit code ${proc.child.exitCode}) ---\n${proc.output().slice(-4000)}`,
    )
    .join('\n');
}

beforeAll(async () => {
  broker = await createOwnBroker();
  await broker.start();
  kafka = createKafka({ brokers: [broker.address], clientId: 'restart-e2e', logger: silentLogger() });
  await createTopics(kafka, prefix);
  db = await createTestDatabase();
  orm = await connectDatabase({ url: db.url, poolMax: 2 });
  libre = await startLibreTranslateDouble();
  const ports = { gateway: await freePort(), worker: await freePort(), translator: await freePort() };
  const env: NodeJS.ProcessEnv = {
    ...pipelineEnv({
      databaseUrl: db.url,
      kafkaBrokers: broker.address,
      topicPrefix: prefix,
      ports,
      libreTranslateUrl: libre.url,
    }),
  };
  for (const name of SERVICES) processes.set(name, runService(name, env, ports[name]));
  for (const proc of processes.values()) {
    // Generous: other e2e files start processes (or brokers) of their own at the same time.
    await waitFor(`${proc.url} /health`, () => healthy(proc), 90_000);
  }
  [adminKey, clientKey] = await Promise.all([createKey('admin'), createKey('client')]);
}, 120_000);

afterAll(async () => {
  for (const [name, proc] of processes) {
    // A service that ended on its own is a finding: show why.
    if (proc.child.exitCode !== null) console.error(`${name} exited early:\n${proc.output()}`);
    proc.child.kill('SIGKILL');
  }
  await broker?.remove();
  await libre?.close();
  await orm?.close(true);
  await db?.drop();
}, 60_000);

describe('content pipeline across a Kafka broker restart', () => {
  it('the broker restarted mid-stream loses nothing: every change is delivered at least once and stored exactly once', async () => {
    // English only, from the LibreTranslate double: its answers (`[en] text`) decide the expected rows.
    const config = await call('PUT', '/api/admin/translate/config', adminKey, { target_languages: ['en'] });
    expect(config.status).toBe(200);
    const targets = config.body.data.target_languages as string[];
    expect(targets).toEqual(['en']);

    const ids: string[] = [];
    const reportNext = async (): Promise<number> => {
      const id = `r-${ids.length}`;
      ids.push(id);
      return report(id);
    };

    // 1. The stream runs on a live broker, and the first translations come out of it.
    for (let i = 0; i < 20; i++) expect(await reportNext()).toBe(202);
    await waitFor('the first translations', async () => (await storedTranslations()).length > 0, 30_000, 100);

    // 2. The broker goes down (SIGTERM) while changes keep coming in.
    let stopped = false;
    const stopping = broker.stop().finally(() => (stopped = true));
    const whileStopping: number[] = [];
    while (!stopped && whileStopping.length < 30) {
      whileStopping.push(await reportNext());
      await sleep(100);
    }
    await stopping;
    expect(whileStopping.length).toBeGreaterThan(0);
    expect(whileStopping.every((status) => status === 202)).toBe(true);
    expect(await broker.answers()).toBe(false);

    // 3. Kafka is down, and the worker has seen it (/ready): the gateway still accepts changes
    // (outbox), and no service dies.
    await waitFor(
      "the worker's /ready showing Kafka down",
      async () => (await readiness(processes.get('worker')!, 'kafka')) === 'down',
      30_000,
      100,
    );
    for (let i = 0; i < 15; i++) expect(await reportNext()).toBe(202);
    for (const proc of processes.values()) {
      expect(proc.child.exitCode).toBeNull();
      expect(await healthy(proc)).toBe(true);
    }
    expect(await readiness(processes.get('worker')!, 'kafka')).toBe('down');

    // 4. The broker comes back on the same data; the stream goes on.
    await broker.start();
    for (let i = 0; i < 10; i++) expect(await reportNext()).toBe(202);

    const expected = ids
      .flatMap((id) =>
        Object.entries(fieldsOf(id)).flatMap(([field, text]) =>
          targets.map((lang) => `${id} ${field} ${lang} [${lang}] ${text}`),
        ),
      )
      .sort();
    // Generous: a consumer group whose member could not leave while the broker was down waits for
    // that member's session to time out (10 s, libs/kafka) before it rebalances and reads again.
    try {
      await waitFor(
        `all ${expected.length} translations`,
        async () => (await storedTranslations()).length >= expected.length,
        90_000,
        250,
      );
    } catch (err) {
      const stored = new Set(await storedTranslations());
      const missing = expected.filter((row) => !stored.has(row));
      const unpublished = await unpublishedOutboxRows();
      throw new Error(
        `${(err as Error).message}; ${unpublished} outbox rows unpublished; missing: ${missing.join(', ')}\n${serviceLogs()}`,
        { cause: err },
      );
    }
    // Settled: every outbox row (changes, requests, completions) went out to Kafka, and every step
    // committed all it was given. Then the rows are exact: none missing, extra or doubled, texts right.
    await waitFor('the pipeline idle', () => pipelineIdle(kafka, orm, prefix), 60_000, 250);
    expect(await storedTranslations()).toEqual(expected);
    expect(await unpublishedOutboxRows()).toBe(0);
    await expectEachStepAtLeastOnce(ids, targets);

    // No service crashed or restarted: each is the process started in beforeAll, and it answers.
    for (const [name, proc] of processes) {
      expect({ name, exitCode: proc.child.exitCode, healthy: await healthy(proc) }).toEqual({
        name,
        exitCode: null,
        healthy: true,
      });
    }
    // And their consumers are back in their groups: /ready says so.
    await untilReady('worker', 'consumers');
    await untilReady('translator', 'engine-consumers');
  }, 180_000);
});

/**
 * Each step delivered every item at least once and nothing else: one ContentChanged key per vendor,
 * one TranslationRequested and TranslationCompleted key and one engine text per field and language.
 * At-least-once allows more than one of each; those duplicates are printed, not failed.
 */
async function expectEachStepAtLeastOnce(ids: readonly string[], targets: readonly string[]): Promise<void> {
  const perField = ids.flatMap((id) =>
    Object.entries(fieldsOf(id)).flatMap(([field, text]) =>
      targets.map((lang) => ({ id, field, text, lang })),
    ),
  );
  const expectedKeys: Record<TopicKey & string, string[]> = {
    contentChanged: ids.map((id) => `vendor:${id}`),
    // One request and one completion per entity and language, carrying its fields.
    translationRequested: [...new Set(perField.map((f) => `vendor:${f.id}:${f.lang}`))],
    translationCompleted: [...new Set(perField.map((f) => `vendor:${f.id}:${f.lang}`))],
    translationRequestedRetry: [],
    deadLetter: [],
  };
  const seen: Record<string, ReturnType<typeof duplicates>> = {};
  for (const [topic, keys] of Object.entries(expectedKeys) as [TopicKey, string[]][]) {
    const counts = await messagesPerKey(kafka, topicName(topic, prefix));
    expect({ topic, keys: [...counts.keys()].sort() }).toEqual({ topic, keys: [...keys].sort() });
    seen[topic] = duplicates(counts);
  }
  const requests = engineRequestsPerText(libre.requests);
  const texts = perField.map((f) => `${f.lang} ${f.text}`);
  expect([...requests.keys()].sort()).toEqual([...texts].sort());
  seen['engine requests'] = duplicates(requests);
  console.log(
    `broker restart: ${ids.length} changes, ${perField.length} rows; duplicates by step: ${JSON.stringify(seen)}`,
  );
}
