import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { promisify } from 'node:util';

import { freePort, REPO_ROOT } from './processes.js';

const run = promisify(execFile);

/**
 * A Kafka cluster of one test file's own: `size` KRaft nodes (each a broker and a controller) of
 * infra/kafka/kafka.sh on this machine, on free ports, with their data in <repo>/.run/kafka-cluster-<hex>-<id>.
 * The internal topics are replicated to every node (at most three copies).
 */
export interface OwnCluster {
  /** Bootstrap addresses of every node, for KAFKA_BROKERS. */
  readonly brokers: readonly string[];
  /** Node ids, 1..size. */
  readonly nodeIds: readonly number[];
  /** Starts every node at once (a node waits for a quorum of controllers before it is up). */
  start(): Promise<void>;
  /** SIGKILL: the node dies as in a crash, without leaving its partitions. */
  kill(nodeId: number): Promise<void>;
  /** Stops every node and deletes the data. */
  remove(): Promise<void>;
}

export async function createOwnCluster(size: number): Promise<OwnCluster> {
  const tag = randomBytes(4).toString('hex');
  const nodes: { id: number; port: number; controllerPort: number; runDir: string }[] = [];
  const taken = new Set<number>();
  const nextPort = async () => {
    let port = await freePort();
    while (taken.has(port)) port = await freePort();
    taken.add(port);
    return port;
  };
  for (let id = 1; id <= size; id++) {
    nodes.push({
      id,
      port: await nextPort(),
      controllerPort: await nextPort(),
      runDir: `${REPO_ROOT}.run/kafka-cluster-${tag}-${id}`,
    });
  }
  // A Kafka cluster id: 16 random bytes in URL-safe base64 without padding.
  const clusterId = randomBytes(16).toString('base64url');
  const voters = nodes.map((n) => `${n.id}@127.0.0.1:${n.controllerPort}`).join(',');
  const kafkaSh = async (node: (typeof nodes)[number], command: 'start' | 'stop' | 'kill' | 'fetch') => {
    await run('bash', [`${REPO_ROOT}infra/kafka/kafka.sh`, command], {
      env: {
        ...process.env,
        KAFKA_PORT: String(node.port),
        KAFKA_CONTROLLER_PORT: String(node.controllerPort),
        KAFKA_RUN_DIR: node.runDir,
        KAFKA_NODE_ID: String(node.id),
        KAFKA_QUORUM_VOTERS: voters,
        KAFKA_CLUSTER_ID: clusterId,
        KAFKA_INTERNAL_REPLICATION: String(Math.min(size, 3)),
        KAFKA_START_TIMEOUT: '150',
      },
    });
  };
  const node = (id: number) => {
    const found = nodes.find((n) => n.id === id);
    if (!found) throw new Error(`no node ${id}`);
    return found;
  };
  return {
    brokers: nodes.map((n) => `127.0.0.1:${n.port}`),
    nodeIds: nodes.map((n) => n.id),
    start: async () => {
      await kafkaSh(nodes[0]!, 'fetch');
      await Promise.all(nodes.map((n) => kafkaSh(n, 'start')));
    },
    kill: (id) => kafkaSh(node(id), 'kill'),
    remove: async () => {
      await Promise.all(nodes.map((n) => kafkaSh(n, 'stop').catch(() => undefined)));
      await Promise.all(nodes.map((n) => rm(n.runDir, { recursive: true, force: true })));
    },
  };
}
