// Jest global setup: real infrastructure for the integration and e2e tiers, picked in this order:
// 1. KAFKA_BROKERS / DATABASE_URL / REDIS_URL when set;
// 2. otherwise, for Kafka, a testcontainers broker when a container runtime answers;
// 3. otherwise the native broker from infra/kafka (its own ports and data folder, so a dev stack on
//    9092 is untouched), and the local Postgres and Redis.
// Apertium: APERTIUM_URL when set, otherwise a real APy started here on a free port by
// infra/apertium/apertium.sh (which installs it and the default pairs with apt-get when missing).
// Each test file then creates its own database from the migrated template made here (databases.ts),
// and its own topic and key prefixes, so files never see each other's data.
// Plain JavaScript: jest loads global hooks outside its ESM test runtime.
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import pg from 'pg';
import { createClient } from 'redis';

const run = promisify(execFile);
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const TEST_KAFKA_PORT = 19092;

/** Environment for infra/kafka/kafka.sh so it manages the tests' own broker. */
export function kafkaScriptEnv() {
  return {
    ...process.env,
    KAFKA_PORT: String(TEST_KAFKA_PORT),
    KAFKA_CONTROLLER_PORT: String(TEST_KAFKA_PORT + 1),
    KAFKA_RUN_DIR: `${REPO_ROOT}.run/kafka-test`,
  };
}

/** Environment for infra/apertium/apertium.sh so it manages the tests' own APy on `port`. */
export function apertiumScriptEnv(port) {
  return {
    ...process.env,
    APERTIUM_PORT: String(port),
    APERTIUM_RUN_DIR: `${REPO_ROOT}.run/apertium-test-${port}`,
  };
}

export default async function globalSetup() {
  process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
  process.env.REDIS_URL ??= 'redis://127.0.0.1:6379/0';
  await assertRedis(process.env.REDIS_URL);
  // Started alongside the rest; a failure is reported where it is awaited.
  const apertium = process.env.APERTIUM_URL ? undefined : timed('apertium', startApertium);
  apertium?.catch(() => undefined);
  await prepareTemplateDatabase(process.env.DATABASE_URL);
  if (!process.env.KAFKA_BROKERS) process.env.KAFKA_BROKERS = await timed('kafka', startKafka);
  if (apertium) process.env.APERTIUM_URL = await apertium;
  console.log(
    `\n[test] kafka ${process.env.KAFKA_BROKERS}, postgres ${process.env.DATABASE_URL}, redis ${process.env.REDIS_URL}, apertium ${process.env.APERTIUM_URL}`,
  );
}

async function timed(name, start) {
  const started = performance.now();
  const result = await start();
  console.log(`\n[test] ${name} ready after ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return result;
}

/** A real APy on a free port (each run its own, so parallel runs never stop each other's). */
async function startApertium() {
  const port = await freePort();
  try {
    await run('bash', [`${REPO_ROOT}infra/apertium/apertium.sh`, 'start'], { env: apertiumScriptEnv(port) });
  } catch (err) {
    throw new Error(`Apertium could not be started: ${String(err.stderr ?? err.message).trim()}`, {
      cause: err,
    });
  }
  process.env.TP_TEST_STARTED_APERTIUM = String(port);
  return `http://127.0.0.1:${port}`;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function assertRedis(url) {
  const client = createClient({ url, socket: { connectTimeout: 2000, reconnectStrategy: false } });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
  } catch (err) {
    throw new Error(`Redis at ${url} does not answer (${err.message}); start it or set REDIS_URL`, {
      cause: err,
    });
  } finally {
    if (client.isOpen) await client.close();
  }
}

/** A migrated database the test files copy theirs from (databases.ts); also used by scripts/mutation.mjs. */
export async function prepareTemplateDatabase(serverUrl) {
  const name = `tp_test_tpl_${process.pid}`;
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
  } catch (err) {
    throw new Error(
      `Postgres at ${serverUrl} does not answer (${err.message}); start it or set DATABASE_URL`,
      {
        cause: err,
      },
    );
  }
  try {
    await client.query(`drop database if exists ${name}`);
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  // The same migration CLI operators run, from the TypeScript sources.
  await run(
    `${REPO_ROOT}node_modules/.bin/tsx`,
    ['--conditions=@tp/source', `${REPO_ROOT}infra/db/src/migrate.cli.ts`, 'up'],
    {
      env: { ...process.env, DATABASE_URL: url.toString() },
    },
  );
  process.env.TP_TEST_TEMPLATE_DB = name;
}

async function startKafka() {
  const container = await startKafkaContainer();
  if (container) return container;
  await run('bash', [`${REPO_ROOT}infra/kafka/kafka.sh`, 'start'], { env: kafkaScriptEnv() });
  process.env.TP_TEST_STARTED_KAFKA = 'native';
  return `127.0.0.1:${TEST_KAFKA_PORT}`;
}

/** A Kafka container when testcontainers finds a runtime; undefined otherwise (as on this project's machines). */
async function startKafkaContainer() {
  const { getContainerRuntimeClient, GenericContainer, Wait } = await import('testcontainers');
  try {
    await getContainerRuntimeClient();
  } catch {
    return undefined;
  }
  const port = TEST_KAFKA_PORT;
  const container = await new GenericContainer('apache/kafka:4.1.0')
    .withExposedPorts({ container: port, host: port })
    .withEnvironment({
      KAFKA_NODE_ID: '1',
      KAFKA_PROCESS_ROLES: 'broker,controller',
      KAFKA_LISTENERS: `PLAINTEXT://:${port},CONTROLLER://:9093`,
      KAFKA_ADVERTISED_LISTENERS: `PLAINTEXT://127.0.0.1:${port}`,
      KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
      KAFKA_CONTROLLER_QUORUM_VOTERS: '1@localhost:9093',
      KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
      KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
      KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'false',
    })
    .withWaitStrategy(Wait.forLogMessage(/Kafka Server started/))
    .start();
  globalThis.kafkaContainer = container;
  return `127.0.0.1:${port}`;
}
