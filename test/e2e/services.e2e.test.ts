import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { topicName } from '@tp/contracts';
import { connectDatabase, insertIntoOutbox } from '@tp/db';
import { KafkaConsumer } from '@tp/kafka';
import { buildTinyNliModel } from '@tp/models';
import { EventCodec, newEvent } from '@tp/schemas';

import { createTestDatabase, type TestDatabase } from '../harness/databases.js';
import { createTopics, testKafka, uniquePrefix } from '../harness/kafka.js';
import { silentLogger } from '../harness/logger.js';
import { freePort, REPO_ROOT, runService, type ServiceProcess, waitForHealth } from '../harness/processes.js';
import { waitFor } from '../harness/wait.js';

const run = promisify(execFile);
const SERVICES = ['translator', 'nli', 'worker', 'gateway'] as const;
const EXPECTED_DEPENDENCIES: Record<(typeof SERVICES)[number], string[]> = {
  gateway: ['kafka', 'nli', 'postgres', 'redis', 'translator'],
  translator: ['engine-consumers', 'engines', 'kafka', 'postgres', 'redis'],
  nli: ['model', 'postgres', 'redis'],
  worker: ['consumers', 'kafka', 'outbox-backlog', 'postgres', 'redis'],
};

let db: TestDatabase;
const prefix = uniquePrefix('e2e');
const running = new Map<string, ServiceProcess>();
let env: NodeJS.ProcessEnv;
let nliModelDir: string;

beforeAll(async () => {
  db = await createTestDatabase();
  nliModelDir = await mkdtemp(join(tmpdir(), 'tp-nli-'));
  await buildTinyNliModel(nliModelDir);
  await createTopics(testKafka('e2e'), prefix);
  const ports = Object.fromEntries(
    await Promise.all(SERVICES.map(async (s) => [s, await freePort()] as const)),
  );
  env = {
    DATABASE_URL: db.url,
    KAFKA_BROKERS: process.env.KAFKA_BROKERS,
    REDIS_URL: process.env.REDIS_URL,
    KAFKA_TOPIC_PREFIX: prefix,
    TRANSLATOR_URL: `http://127.0.0.1:${ports.translator}`,
    NLI_URL: `http://127.0.0.1:${ports.nli}`,
    WORKER_URL: `http://127.0.0.1:${ports.worker}`,
    // The tiny NLI model, explicitly allowed: without a model nli starts but is not ready.
    NLI_MODEL_DIR: nliModelDir,
    ALLOW_TEST_MODELS: 'true',
  };
  for (const service of SERVICES) {
    // The gateway logs at info, so the access log is there for the check that no key reaches it.
    const level = service === 'gateway' ? { LOG_LEVEL: 'info' } : {};
    running.set(service, runService(service, { ...env, ...level }, ports[service]!));
  }
  for (const [name, proc] of running) {
    await waitForHealth(name, proc);
  }
}, 150_000);

afterAll(async () => {
  for (const proc of running.values()) proc.child.kill('SIGKILL');
  await db.drop();
  await rm(nliModelDir, { recursive: true, force: true });
});

describe('the four services, as processes', () => {
  it.each(SERVICES)('%s answers /health with 200', async (service) => {
    const res = await fetch(`${running.get(service)!.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok', service });
  });

  it.each(SERVICES)('%s reports each of its dependencies on /ready, all up', async (service) => {
    const url = `${running.get(service)!.url}/ready`;
    // The consumers of the worker and the translator join their groups after the port opens (the
    // translator's after it has read its engines' language pairs), and the translator's are optional:
    // /ready is 200 before they are up, so wait for every dependency, not for the status.
    type Ready = { status: string; dependencies: Record<string, { status: string }> };
    const allUp = async () => {
      const body = (await (await fetch(url)).json()) as Ready;
      return Object.values(body.dependencies).every((dep) => dep.status === 'up');
    };
    await waitFor(`${service} ready with every dependency up`, allUp, 30_000);
    const res = await fetch(url);
    const body = (await res.json()) as Ready;
    expect(res.status).toBe(200);
    expect(body.status).toBe('ready');
    expect(Object.keys(body.dependencies).sort()).toEqual(EXPECTED_DEPENDENCIES[service]);
    for (const dep of Object.values(body.dependencies)) expect(dep.status).toBe('up');
  });

  it.each(SERVICES)('%s serves Prometheus metrics', async (service) => {
    const text = await (await fetch(`${running.get(service)!.url}/metrics`)).text();
    expect(text).toContain(`process_cpu_seconds_total{service="${service}"}`);
  });

  it.each([
    ['worker', ['worker.dead-letters', 'worker.planner', 'worker.projection']],
    ['translator', ['translator.engines', 'translator.engines.retry']],
  ] as const)('%s shows each of its consumer groups as consuming on /metrics', async (service, groups) => {
    const url = running.get(service)!.url;
    await waitFor(`${service} ready`, async () => (await fetch(`${url}/ready`)).status === 200, 20_000);
    const text = await (await fetch(`${url}/metrics`)).text();
    const consuming = [...text.matchAll(/^kafka_consumer_consuming\{group="([^"]+)"[^}]*\} 1$/gm)].map(
      (m) => m[1],
    );
    expect(consuming.sort()).toEqual(groups.map((group) => `${prefix}${group}`));
  });

  it('answers an unknown route with the 404 error envelope and echoes the request id', async () => {
    const res = await fetch(`${running.get('gateway')!.url}/no/such/route`, {
      headers: { 'x-request-id': 'req-42' },
    });
    expect(res.status).toBe(404);
    expect(res.headers.get('x-request-id')).toBe('req-42');
    expect(await res.json()).toEqual({
      code: 40401,
      error: 'NOT_FOUND',
      message: 'no route for GET /no/such/route',
      request_id: 'req-42',
    });
  });

  it('npm run keys -- create --role admin prints a key that opens the admin status, and no key is logged', async () => {
    const { stdout } = await run('npm', ['run', '--silent', 'keys', '--', 'create', '--role', 'admin'], {
      cwd: REPO_ROOT,
      env: { ...process.env, DATABASE_URL: db.url },
    });
    const key = stdout.trim();
    expect(key).toMatch(/^tp_[A-Za-z0-9_-]{43}$/);
    const gateway = running.get('gateway')!.url;
    const unknownKey = `tp_${'Z'.repeat(43)}`;
    expect(
      (
        await fetch(`${gateway}/api/admin/translate/status`, {
          headers: { authorization: `Bearer ${unknownKey}` },
        })
      ).status,
    ).toBe(401);

    const res = await fetch(`${gateway}/api/admin/translate/status`, {
      headers: { authorization: `Bearer ${key}`, 'x-request-id': 'e2e-status' },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      data: { translator: { online: boolean }; processes: Record<string, { online: boolean }> };
    };
    expect(body.data.translator.online).toBe(true);
    for (const name of ['gateway', 'translator', 'nli', 'worker'])
      expect(body.data.processes[name]?.online).toBe(true);

    await waitFor('the access log line', () => running.get('gateway')!.output().includes('e2e-status'));
    const logs = running.get('gateway')!.output();
    expect(logs).not.toContain(key);
    expect(logs).not.toContain(key.slice(3));
    expect(logs).not.toContain(unknownKey);
    expect(logs).toMatch(/"req_id":"e2e-status".*"url":"\/api\/admin\/translate\/status"/);
  });

  it('the worker relays an event committed to the outbox onto Kafka', async () => {
    const codec = new EventCodec();
    const topic = topicName('contentChanged', prefix);
    const event = newEvent(
      'ContentChanged',
      {
        module: 'm',
        entityType: 'vendor',
        entityId: 'e2e-1',
        sourceLang: 'zh-CN',
        sourceVersion: 1,
        fields: [{ name: 'name', text: '你好', format: 'text' }],
      },
      { correlationId: 'e2e' },
    );
    const orm = await connectDatabase({ url: db.url, poolMax: 1 });
    await insertIntoOutbox(orm.em.fork(), codec, [{ topic, key: 'vendor:e2e-1', event }]);
    await orm.close(true);

    const seen: string[] = [];
    const consumer = new KafkaConsumer(testKafka('e2e-check'), {
      groupId: `${prefix}check`,
      topics: [topic],
      logger: silentLogger(),
    });
    await consumer.start(async (m) => {
      seen.push(codec.decode(m.value, m.headers).eventId);
    });
    await waitFor('the relayed event', () => seen.includes(event.eventId));
    await consumer.stop();
  });

  it.each(SERVICES)('%s stops cleanly on SIGTERM within 10 s', async (service) => {
    const proc = running.get(service)!;
    const started = Date.now();
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(proc.output()).not.toMatch(/"level":"(error|fatal)"/);
  });
});

describe('bad configuration stops a service at start with one line naming the setting', () => {
  const cases: [string, NodeJS.ProcessEnv, RegExp][] = [
    [
      'a malformed port',
      { PORT: 'eighty' },
      /^\[worker\] configuration error: PORT: must be a TCP port number \(got "eighty"\)$/,
    ],
    [
      'an unreachable DATABASE_URL',
      { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere' },
      /^\[worker\] configuration error: DATABASE_URL: cannot connect to postgres:\/\/postgres@127\.0\.0\.1:1\/nowhere: .*ECONNREFUSED/,
    ],
    [
      'a DATABASE_URL of the wrong kind',
      { DATABASE_URL: 'mysql://db/x' },
      /^\[worker\] configuration error: DATABASE_URL: must be a URL/,
    ],
    [
      'malformed KAFKA_BROKERS',
      { KAFKA_BROKERS: 'kafka-without-port' },
      /^\[worker\] configuration error: KAFKA_BROKERS: /,
    ],
  ];

  it.each(cases)('%s', async (_label, bad, line) => {
    const { PORT, ...rest } = bad;
    const proc = runService('worker', { ...env, ...rest }, PORT ?? (await freePort()));
    expect(await proc.exited).toBe(1);
    const lines = proc.output().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(line);
  });
});
