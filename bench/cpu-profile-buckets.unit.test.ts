import { describe, expect, it } from '@jest/globals';

import {
  BUCKETS,
  bucketOfFrame,
  bucketTable,
  packageOf,
  summariseProfile,
  type CpuProfile,
  type ProfileNode,
} from './cpu-profile-buckets.js';

const ROOT = 'file:///work/repo';
const frame = (functionName: string, url = '') => ({ functionName, url });

/** A profile from a tree of [functionName, url, children] and samples given as [node id, µs until the next]. */
function profileOf(nodes: ProfileNode[], samples: [number, number][]): CpuProfile {
  return {
    nodes,
    startTime: 1_000,
    endTime: 1_000 + samples.reduce((sum, [, micros]) => sum + micros, 0),
    samples: samples.map(([id]) => id),
    // The first sample comes at the start; each delta is the time since the previous sample.
    timeDeltas: samples.map((_, i) => (i === 0 ? 0 : (samples[i - 1] as [number, number])[1])),
  };
}

describe('the package of a profile URL', () => {
  it('is the last node_modules folder, scoped packages with their scope', () => {
    expect(packageOf(`${ROOT}/node_modules/kafkajs/src/producer/index.js`)).toBe('kafkajs');
    expect(packageOf(`${ROOT}/node_modules/@redis/client/dist/lib/client.js`)).toBe('@redis/client');
    expect(packageOf(`${ROOT}/node_modules/a/node_modules/pg-protocol/dist/parser.js`)).toBe('pg-protocol');
    expect(packageOf(`${ROOT}/libs/kafka/dist/kafka-consumer.js`)).toBeUndefined();
  });
});

describe('the bucket of one frame', () => {
  it('puts known packages in their bucket and the rest in other packages, by name', () => {
    const of = (pkg: string) => bucketOfFrame(frame('f', `${ROOT}/node_modules/${pkg}/index.js`));
    expect(of('kafkajs')).toEqual({ bucket: BUCKETS.kafkajs });
    expect(of('avsc')).toEqual({ bucket: BUCKETS.avro });
    expect(of('pg-protocol')).toEqual({ bucket: BUCKETS.pg });
    expect(of('@mikro-orm/knex')).toEqual({ bucket: BUCKETS.orm });
    expect(of('@redis/client')).toEqual({ bucket: BUCKETS.redis });
    expect(of('onnxruntime-node')).toEqual({ bucket: BUCKETS.model });
    expect(of('@opentelemetry/sdk-trace-base')).toEqual({ bucket: BUCKETS.otel });
    expect(of('zod')).toEqual({ bucket: BUCKETS.packages, part: 'zod' });
  });

  it('names our code by service folder or library, and counts the offline engine as the model run', () => {
    expect(bucketOfFrame(frame('plan', `${ROOT}/services/worker/dist/plan-translations/planner.js`))).toEqual(
      {
        bucket: BUCKETS.ours,
        part: 'services/worker/plan-translations',
      },
    );
    expect(bucketOfFrame(frame('send', `${ROOT}/libs/kafka/src/kafka-producer.ts`))).toEqual({
      bucket: BUCKETS.ours,
      part: 'libs/kafka',
    });
    expect(
      bucketOfFrame(frame('decode', `${ROOT}/services/translator/dist/engines/offline/marian-model.js`)),
    ).toEqual({ bucket: BUCKETS.model });
  });

  it('gives Node core and builtins no bucket, and V8 its own nodes', () => {
    expect(bucketOfFrame(frame('writeGeneric', 'node:internal/stream_base_commons'))).toBeUndefined();
    expect(bucketOfFrame(frame('JSON.parse'))).toBeUndefined();
    expect(bucketOfFrame(frame('(garbage collector)'))).toEqual({ bucket: BUCKETS.gc });
    expect(bucketOfFrame(frame('(program)'))).toEqual({ bucket: BUCKETS.program });
  });
});

describe('a profile summed by bucket', () => {
  // (root) -> handler (ours) -> send (kafkajs) -> write (node:net)
  //                          -> parse (builtin, no url)
  //        -> tick (node:internal)
  //        -> (garbage collector), (idle)
  const nodes: ProfileNode[] = [
    { id: 1, callFrame: frame('(root)'), children: [2, 6, 7, 8] },
    {
      id: 2,
      callFrame: frame('handle', `${ROOT}/services/worker/dist/project-translations/h.js`),
      children: [3, 5],
    },
    { id: 3, callFrame: frame('send', `${ROOT}/node_modules/kafkajs/src/producer/index.js`), children: [4] },
    { id: 4, callFrame: frame('writeGeneric', 'node:internal/stream_base_commons') },
    { id: 5, callFrame: frame('JSON.parse') },
    { id: 6, callFrame: frame('processTicksAndRejections', 'node:internal/process/task_queues') },
    { id: 7, callFrame: frame('(garbage collector)') },
    { id: 8, callFrame: frame('(idle)') },
  ];

  it("charges a sample to the first bucket walking up from the leaf, Node core's to its caller", () => {
    const summary = summariseProfile(
      profileOf(nodes, [
        [4, 100], // node:net under kafkajs: kafkajs
        [3, 50], // kafkajs itself
        [5, 30], // a builtin under our handler: ours
        [2, 20], // ours
        [6, 7], // nothing but Node core
        [7, 40], // GC
        [8, 1_000], // idle: not CPU
      ]),
    );
    expect(Object.fromEntries(summary.byBucket)).toEqual({
      [BUCKETS.kafkajs]: 150,
      [BUCKETS.ours]: 50,
      [BUCKETS.node]: 7,
      [BUCKETS.gc]: 40,
    });
    expect(Object.fromEntries(summary.byPart)).toEqual({
      [`${BUCKETS.ours}: services/worker/project-translations`]: 50,
    });
    expect(summary.busyMicros).toBe(247);
    expect(summary.idleMicros).toBe(1_000);
  });

  it('counts each sample until the next one, the last until the end of the profile', () => {
    const profile = { ...profileOf(nodes, [[3, 10]]), endTime: 1_000 + 25 };
    expect(summariseProfile(profile).byBucket.get(BUCKETS.kafkajs)).toBe(25);
    const twoSamples = profileOf(nodes, [
      [3, 10],
      [7, 90],
    ]);
    expect(summariseProfile(twoSamples).byBucket.get(BUCKETS.kafkajs)).toBe(10);
    expect(summariseProfile(twoSamples).byBucket.get(BUCKETS.gc)).toBe(90);
  });

  it("prints the buckets' shares of the main thread's CPU per unit, a column per process, and the totals", () => {
    const summary = summariseProfile(
      profileOf(nodes, [
        [3, 300],
        [2, 100],
        [8, 500],
      ]),
    );
    // 400 µs sampled busy, 200 µs of main-thread CPU: each bucket gets half its sampled time.
    const otherThreads = new Map([
      ['V8 DefaultWorke', 50],
      ['libuv-worker', 10],
      ['idle thread', 0.1],
    ]);
    const table = bucketTable(
      [{ name: 'worker', summary, mainThreadMicros: 200, cpuMicros: 280.1, otherThreads }],
      10,
    );
    expect(table.split('\n')).toEqual([
      '| bucket, CPU µs per unit | worker |',
      '|---|---:|',
      `| ${BUCKETS.kafkajs} | 15.0 |`,
      `| ${BUCKETS.ours} | 5.0 |`,
      '| · services/worker/project-translations | 5.0 |',
      '| **main thread (the buckets above)** | 20.0 |',
      '| **other threads** | 8.0 |',
      '| · V8 DefaultWorke | 5.0 |',
      '| · libuv-worker | 1.0 |',
      '| **· threads that ended** | 2.0 |',
      '| **process** | 28.0 |',
    ]);
  });
});
