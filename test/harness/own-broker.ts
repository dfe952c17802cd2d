import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { promisify } from 'node:util';

import { freePort, REPO_ROOT } from './processes.js';

const run = promisify(execFile);

/**
 * A Kafka broker of one test file's own, for tests that stop and start the broker: the shared test
 * broker (global setup) must stay up for the other files. It is the native broker of
 * infra/kafka/kafka.sh on two free ports, with its data folder in <repo>/.run/kafka-restart-<hex>.
 * start() after stop() uses the same data folder, so topics, messages and committed offsets survive.
 */
export interface OwnBroker {
  /** The bootstrap address for KAFKA_BROKERS and createKafka: 127.0.0.1:<port>. */
  readonly address: string;
  readonly runDir: string;
  /** `kafka.sh start`: returns once the broker logged "Kafka Server started". */
  start(): Promise<void>;
  /** `kafka.sh stop`: SIGTERM, then SIGKILL after KAFKA_STOP_TIMEOUT seconds. */
  stop(): Promise<void>;
  /** Whether something accepts connections on the broker's port. */
  answers(): Promise<boolean>;
  /** Stops the broker (if it runs) and deletes its data folder. */
  remove(): Promise<void>;
}

export async function createOwnBroker(): Promise<OwnBroker> {
  const port = await freePort();
  let controllerPort = await freePort();
  while (controllerPort === port) controllerPort = await freePort();
  const runDir = `${REPO_ROOT}.run/kafka-restart-${randomBytes(4).toString('hex')}`;
  const env = {
    ...process.env,
    KAFKA_PORT: String(port),
    KAFKA_CONTROLLER_PORT: String(controllerPort),
    KAFKA_RUN_DIR: runDir,
  };
  const kafkaSh = async (command: 'start' | 'stop') => {
    await run('bash', [`${REPO_ROOT}infra/kafka/kafka.sh`, command], { env });
  };
  const broker: OwnBroker = {
    address: `127.0.0.1:${port}`,
    runDir,
    start: () => kafkaSh('start'),
    stop: () => kafkaSh('stop'),
    answers: () => portAnswers(port),
    async remove() {
      await broker.stop();
      await rm(runDir, { recursive: true, force: true });
    },
  };
  return broker;
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
