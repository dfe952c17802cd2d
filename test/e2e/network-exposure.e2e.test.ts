// Which ports `npm start` leaves reachable from another host. A network namespace joined to this
// machine by a veth pair (private addresses this test chooses) stands for the other host: from it,
// APy as infra/apertium/apertium.sh starts it and the test Kafka broker refuse the connection, while a
// gateway bound to the host's end of the pair answers. Needs root (ip netns); the namespace and the
// veth pair are removed even when a step fails.
import { execFile } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { createTestDatabase, type TestDatabase } from '../harness/databases.js';
import { uniquePrefix } from '../harness/kafka.js';
import { pipelineEnv } from '../harness/pipeline-services.js';
import { REPO_ROOT, freePort, runService, type ServiceProcess } from '../harness/processes.js';
import { waitFor } from '../harness/wait.js';

const run = promisify(execFile);
const suffix = randomInt(0, 0xffffff).toString(16).padStart(6, '0');
const namespace = `tp-expo-${suffix}`;
const hostEnd = `tpx${suffix}h`;
const otherEnd = `tpx${suffix}o`;
// A /30 of 10.213.0.0/16 per run, so that concurrent runs do not share addresses.
const block = randomInt(0, 16_384) * 4;
const hostAddress = `10.213.${block >> 8}.${(block & 0xff) + 1}`;
const otherAddress = `10.213.${block >> 8}.${(block & 0xff) + 2}`;

const apertiumRunDir = `${REPO_ROOT}.run/apertium-exposure-${suffix}`;
let apertiumPort: number;
let gateway: ServiceProcess | undefined;
let db: TestDatabase | undefined;

const ip = (...args: string[]) => run('ip', args);
const apertium = (command: 'start' | 'stop') =>
  run('bash', [`${REPO_ROOT}infra/apertium/apertium.sh`, command], {
    env: { ...process.env, APERTIUM_PORT: String(apertiumPort), APERTIUM_RUN_DIR: apertiumRunDir },
  });

/** Opens a TCP connection from inside the namespace: `open`, or the error (`refused`, `timeout`...). */
async function connectFromOtherHost(address: string, port: number): Promise<string> {
  const script = `exec 3<>/dev/tcp/${address}/${port} && echo open`;
  try {
    const { stdout } = await run('ip', ['netns', 'exec', namespace, 'timeout', '3', 'bash', '-c', script]);
    return stdout.trim();
  } catch (err) {
    const { stderr, code } = err as { stderr?: string; code?: number };
    if (code === 124) return 'timeout';
    return /refused/i.test(stderr ?? '') ? 'refused' : `failed: ${stderr ?? String(err)}`;
  }
}

/** An HTTP GET from inside the namespace, with bash only: the status line. */
async function httpFromOtherHost(address: string, port: number, path: string): Promise<string> {
  const script = `exec 3<>/dev/tcp/${address}/${port} && printf 'GET ${path} HTTP/1.0\\r\\nHost: x\\r\\n\\r\\n' >&3 && head -n 1 <&3`;
  const { stdout } = await run('ip', ['netns', 'exec', namespace, 'timeout', '5', 'bash', '-c', script]);
  return stdout.trim();
}

async function removeNamespace(): Promise<void> {
  // Deleting the namespace deletes its end of the pair, and with it the host's end.
  await ip('netns', 'del', namespace).catch(() => undefined);
  await ip('link', 'del', hostEnd).catch(() => undefined);
}

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('this test creates a network namespace: run it as root');
  apertiumPort = await freePort();
  try {
    await ip('netns', 'add', namespace);
    await ip('link', 'add', hostEnd, 'type', 'veth', 'peer', 'name', otherEnd);
    await ip('link', 'set', otherEnd, 'netns', namespace);
    await ip('addr', 'add', `${hostAddress}/30`, 'dev', hostEnd);
    await ip('link', 'set', hostEnd, 'up');
    await ip('netns', 'exec', namespace, 'ip', 'addr', 'add', `${otherAddress}/30`, 'dev', otherEnd);
    await ip('netns', 'exec', namespace, 'ip', 'link', 'set', otherEnd, 'up');
    await ip('netns', 'exec', namespace, 'ip', 'link', 'set', 'lo', 'up');
    await apertium('start');
    db = await createTestDatabase();
    const gatewayPort = await freePort();
    const env = pipelineEnv({
      databaseUrl: db.url,
      kafkaBrokers: process.env.KAFKA_BROKERS,
      topicPrefix: uniquePrefix('exposure'),
      ports: { gateway: gatewayPort, worker: await freePort(), translator: await freePort() },
      libreTranslateUrl: 'http://127.0.0.1:9',
    });
    gateway = runService('gateway', { ...env, HOST: hostAddress }, gatewayPort);
    const health = `http://${hostAddress}:${gatewayPort}/health`;
    await waitFor(
      'the gateway on the veth address',
      async () => (await fetch(health).catch(() => null))?.ok === true,
      90_000,
    );
  } catch (err) {
    await cleanUp();
    throw new Error(`${(err as Error).message}\n${gateway?.output().slice(-2000) ?? ''}`, { cause: err });
  }
}, 180_000);

async function cleanUp(): Promise<void> {
  gateway?.child.kill('SIGKILL');
  await gateway?.exited;
  await apertium('stop').catch(() => undefined);
  await removeNamespace();
  await db?.drop();
}

afterAll(cleanUp, 60_000);

describe('ports reachable from another host', () => {
  it('APy, started by infra/apertium/apertium.sh, answers on the loopback address only', async () => {
    const local = await fetch(`http://127.0.0.1:${apertiumPort}/listPairs`);
    expect(local.status).toBe(200);

    expect(await connectFromOtherHost(hostAddress, apertiumPort)).toBe('refused');
  });

  it('the Kafka broker the tests use refuses another host', async () => {
    const [, port] = (process.env.KAFKA_BROKERS ?? '').split(',')[0]?.split(':') ?? [];

    expect(await connectFromOtherHost(hostAddress, Number(port))).toBe('refused');
  });

  it('a gateway bound to the interface the other host reaches answers it', async () => {
    const gatewayPort = Number(gateway?.port);

    expect(await httpFromOtherHost(hostAddress, gatewayPort, '/health')).toMatch(/^HTTP\/1\.1 200/);
  });
});
