// One content change is one trace, as processes: gateway, worker and translator export their spans by
// OTLP over HTTP (JSON) to a receiver this test runs, on real Kafka, Postgres and Redis. The
// LibreTranslate double is the only engine.

import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectDatabase, ContentTranslation, type Orm } from '@tp/db';

import { startLibreTranslateDouble, type LibreTranslateDouble } from '../doubles/libretranslate.double.js';
import { createTestDatabase, type TestDatabase } from '../harness/databases.js';
import { createTopics, testKafka, uniquePrefix } from '../harness/kafka.js';
import { createKeyWithCli, pipelineEnv } from '../harness/pipeline-services.js';
import { freePort, runService, type ServiceProcess, waitForHealth } from '../harness/processes.js';
import { waitFor } from '../harness/wait.js';

/** A span as the OTLP JSON encoding carries it, with its service. */
interface ReceivedSpan {
  readonly service: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes: Readonly<Record<string, unknown>>;
  /** What a CLIENT span calls: its `db.system` (postgresql, redis), or `http` for an HTTP request. */
  readonly system?: string;
}
const SPAN_KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: string | number; boolValue?: boolean };
}
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: {
      spans?: (Omit<ReceivedSpan, 'service' | 'attributes'> & { attributes?: OtlpAttribute[] })[];
    }[];
  }[];
}

const spans: ReceivedSpan[] = [];
const attributesOf = (list: OtlpAttribute[] = []) =>
  Object.fromEntries(
    list.map(({ key, value }) => [key, value.stringValue ?? value.intValue ?? value.boolValue]),
  );

function systemOf(attributes: Record<string, unknown>): Pick<ReceivedSpan, 'attributes' | 'system'> {
  const db = attributes['db.system.name'] ?? attributes['db.system'];
  if (db !== undefined) return { attributes, system: String(db) };
  return { attributes, system: attributes['http.request.method'] === undefined ? undefined : 'http' };
}

/** An OTLP/HTTP JSON receiver: keeps every span it is sent. */
function startReceiver(): Promise<Server> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const data = JSON.parse(body) as OtlpExport;
      for (const resource of data.resourceSpans ?? []) {
        const service = String(attributesOf(resource.resource?.attributes)['service.name']);
        for (const scope of resource.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({ ...span, service, ...systemOf(attributesOf(span.attributes)) });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const prefix = uniquePrefix('trace');
const kafka = testKafka('tracing-e2e');
let db: TestDatabase;
let orm: Orm;
let libre: LibreTranslateDouble;
let receiver: Server;
const processes = new Map<string, ServiceProcess>();
let adminKey: string;
let clientKey: string;

const gateway = () => processes.get('gateway')!.url;

async function call(
  method: string,
  path: string,
  key: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${gateway()}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { data: Record<string, unknown> } };
}

/** Reports vendor `id` under a trace the test starts: the caller's span is the gateway span's parent. */
async function reportTraced(id: string, name: string) {
  const caller = { traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex') };
  const res = await call(
    'POST',
    `/api/v1/content/catalog/vendor/${id}`,
    clientKey,
    { source_lang: 'zh-CN', source_version: 1, fields: { name } },
    { traceparent: `00-${caller.traceId}-${caller.spanId}-01` },
  );
  expect(res.status).toBe(202);
  return caller;
}

const rowCount = (id: string) =>
  orm.em.fork().count(ContentTranslation, { entityType: 'vendor', entityId: id });

const inTrace = (traceId: string) => spans.filter((s) => s.traceId === traceId);

/** The names of a span's ancestors in its trace, nearest first, up to the root or a missing parent. */
function ancestry(span: ReceivedSpan): ReceivedSpan[] {
  const byId = new Map(inTrace(span.traceId).map((s) => [s.spanId, s]));
  const chain: ReceivedSpan[] = [];
  for (
    let at: ReceivedSpan | undefined = span;
    at;
    at = at.parentSpanId ? byId.get(at.parentSpanId) : undefined
  ) {
    chain.push(at);
  }
  return chain;
}

const projectionOf = (traceId: string, entityId: string) =>
  inTrace(traceId).find((s) => s.name === 'projection write' && s.attributes['tp.entity_id'] === entityId);

/** Whether the projection write of `entityId` is in the trace, with every ancestor up to the gateway's span. */
function reachesGateway(traceId: string, entityId: string): boolean {
  const projection = projectionOf(traceId, entityId);
  return projection !== undefined && ancestry(projection).at(-1)?.service === 'gateway';
}

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await connectDatabase({ url: db.url, poolMax: 2 });
  libre = await startLibreTranslateDouble();
  receiver = await startReceiver();
  const address = receiver.address();
  const receiverPort = typeof address === 'object' && address ? address.port : 0;
  await createTopics(kafka, prefix);
  const ports = { gateway: await freePort(), worker: await freePort(), translator: await freePort() };
  const env = {
    ...pipelineEnv({
      databaseUrl: db.url,
      kafkaBrokers: process.env.KAFKA_BROKERS,
      topicPrefix: prefix,
      ports,
      libreTranslateUrl: libre.url,
    }),
    TRANSLATION_MAX_ATTEMPTS: '2',
    TRANSLATION_RETRY_BACKOFF_MS: '100',
    TRANSLATION_RETRY_MAX_BACKOFF_MS: '200',
    LOG_LEVEL: 'info',
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiverPort}`,
    OTEL_BSP_SCHEDULE_DELAY: '100',
  };
  for (const name of ['translator', 'worker', 'gateway'] as const) {
    processes.set(name, runService(name, env, ports[name]));
  }
  for (const [name, proc] of processes) {
    await waitForHealth(name, proc);
  }
  [adminKey, clientKey] = await Promise.all([
    createKeyWithCli(db.url, 'admin'),
    createKeyWithCli(db.url, 'client'),
  ]);
  const config = await call('PUT', '/api/admin/translate/config', adminKey, {
    target_languages: ['fr'],
    enabled: true,
  });
  expect(config.status).toBe(200);
}, 150_000);

afterAll(async () => {
  for (const proc of processes.values()) proc.child.kill('SIGKILL');
  await libre?.close();
  await new Promise((resolve) => receiver?.close(resolve));
  await orm?.close(true);
  await db?.drop();
});

describe('tracing (gateway, worker and translator as processes, spans exported by OTLP)', () => {
  it('one report is one trace: gateway request, outbox, planner, engine, projection write, parent by parent', async () => {
    const caller = await reportTraced('t-1', '华为技术');
    await waitFor('the row written', async () => (await rowCount('t-1')) === 1, 30_000);
    await waitFor(
      'the spans from the gateway to the projection write',
      () => reachesGateway(caller.traceId, 't-1'),
      15_000,
    ).catch((err: unknown) => {
      const seen = [...new Set(spans.map((x) => `${x.service}:${x.name}`))].join(', ');
      throw new Error(`spans: ${seen}; gateway: ${processes.get('gateway')!.output().slice(-1500)}`, {
        cause: err,
      });
    });

    const path = ancestry(projectionOf(caller.traceId, 't-1')!);
    const steps = path.map(
      (s) => `${s.service}:${s.name.replace(/ \S*?\.(?=(content|translation)\.)/, ' ')}`,
    );
    expect(steps).toEqual([
      'worker:projection write',
      'worker:process translation.completed.v1',
      'translator:send translation.completed.v1',
      'translator:process translation.requested.v1',
      'worker:send translation.requested.v1',
      'worker:outbox write',
      'worker:planner',
      'worker:process content.changed.v1',
      'worker:send content.changed.v1',
      'gateway:outbox write',
      'gateway:POST /api/v1/content/:module/:type/:id',
    ]);
    // The gateway's span is the caller's child: the trace started outside.
    expect(path.at(-1)?.parentSpanId).toBe(caller.spanId);
    expect(path.at(-1)?.kind).toBe(SPAN_KIND.server);
    const messaging = path.filter((s) => s.name.startsWith('send ') || s.name.startsWith('process '));
    for (const span of messaging) {
      expect(span.kind).toBe(span.name.startsWith('send ') ? SPAN_KIND.producer : SPAN_KIND.consumer);
      expect(span.attributes['messaging.system']).toBe('kafka');
      expect(span.name).toContain(String(span.attributes['messaging.destination.name']));
    }
    // The engine was called under the request's processing span, through the chain.
    const processing = path[3]!;
    const attempt = inTrace(caller.traceId).find((s) => s.name === 'engine attempt libretranslate');
    expect(attempt && ancestry(attempt).map((s) => s.name)).toEqual([
      'engine attempt libretranslate',
      'translation chain',
      processing.name,
      ...path.slice(4).map((s) => s.name),
    ]);
    // Log lines written in the request carry its trace.
    expect(processes.get('gateway')!.output()).toContain(`"trace_id":"${caller.traceId}"`);
  }, 60_000);

  it('the maintained instrumentations add CLIENT spans under the platform spans: Postgres, Redis, the engine call', async () => {
    const caller = await reportTraced('t-3', '腾讯控股');
    await waitFor('the row written', async () => (await rowCount('t-3')) === 1, 30_000);
    const clientUnder = (system: string, ancestor: string, name = '') =>
      inTrace(caller.traceId).find(
        (s) =>
          s.kind === SPAN_KIND.client &&
          s.system === system &&
          s.name.startsWith(name) &&
          ancestry(s)
            .slice(1)
            .some((a) => a.name.startsWith(ancestor)),
      );
    await waitFor(
      'a pg span under the projection write, a redis span under a message handling, the engine call',
      () =>
        reachesGateway(caller.traceId, 't-3') &&
        clientUnder('postgresql', 'projection write', 'pg.query') !== undefined &&
        clientUnder('redis', 'process ') !== undefined &&
        clientUnder('http', 'engine attempt libretranslate') !== undefined,
      15_000,
    ).catch((err: unknown) => {
      const clients = inTrace(caller.traceId)
        .filter((s) => s.kind === SPAN_KIND.client)
        .map(
          (s) =>
            `${s.system}:${ancestry(s)
              .map((a) => `${a.service}:${a.name}`)
              .join(' < ')}`,
        );
      throw new Error(`client spans of t-3:\n${clients.join('\n')}`, { cause: err });
    });

    // The projection's query: pg's span, a child of the worker's projection write, in the report's trace.
    const query = clientUnder('postgresql', 'projection write', 'pg.query')!;
    expect(query.service).toBe('worker');
    expect(ancestry(query).at(-1)?.name).toBe('POST /api/v1/content/:module/:type/:id');
    // A Redis command made while a Kafka message was handled, in the same trace.
    expect(clientUnder('redis', 'process ')!.name).toMatch(/^redis-[A-Z]+/);
    // The engine's HTTP call (fetch): a direct child of its attempt.
    const call = clientUnder('http', 'engine attempt libretranslate')!;
    expect(ancestry(call)[1]?.name).toBe('engine attempt libretranslate');
    expect(call.attributes['http.request.method']).toBe('POST');
    // MikroORM inlines values into the SQL it sends: the exported statements have them replaced, so
    // no span carries the reported text.
    const statements = inTrace(caller.traceId)
      .filter((s) => s.name.startsWith('pg.query') && ancestry(s).some((a) => a.name === 'projection write'))
      .map((s) => String(s.attributes['db.query.text']));
    expect(statements.find((t) => t.includes('content_translations'))).toContain("'?'");
    const leaks = inTrace(caller.traceId).filter((s) => JSON.stringify(s.attributes).includes('腾讯控股'));
    expect(leaks.map((s) => `${s.service}:${s.name}`)).toEqual([]);
  }, 60_000);

  it('a dead letter replayed after the fix is handled in the trace of its original report', async () => {
    libre.fail(
      { type: 'respond', status: 503, body: { error: 'down' } },
      { times: 1000, path: '/translate' },
    );
    const caller = await reportTraced('t-2', '联想集团');
    let failedId: unknown;
    await waitFor(
      'the dead letter of t-2',
      async () => {
        const list = await call('GET', '/api/admin/translate/dead-letters?limit=50', adminKey);
        const entries = (list.body.data.entries ?? []) as { id: number; error_code: string }[];
        failedId = entries.find((e) => e.error_code === 'TRANSLATION_FAILED')?.id;
        return failedId !== undefined;
      },
      40_000,
    ).catch((err: unknown) => {
      throw new Error(`no dead letter: ${processes.get('translator')!.output().slice(-3000)}`, {
        cause: err,
      });
    });
    expect(projectionOf(caller.traceId, 't-2')).toBeUndefined();

    libre.reset();
    const replay = await call('POST', '/api/admin/translate/dead-letters/replay', adminKey, {
      ids: [failedId],
    });
    expect(replay.status).toBe(200);
    await waitFor('the replayed row written', async () => (await rowCount('t-2')) === 1, 30_000);
    await waitFor(
      'the spans from the gateway to the projection write',
      () => reachesGateway(caller.traceId, 't-2'),
      15_000,
    ).catch((err: unknown) => {
      const mine = spans.filter((x) => x.attributes['tp.entity_id'] === 't-2');
      const paths = mine.map(
        (x) =>
          `${x.traceId === caller.traceId}:` +
          ancestry(x)
            .map((a) => `${a.service}:${a.name}`)
            .join(' < '),
      );
      throw new Error(`t-2 spans: ${paths.join('\n')}`, { cause: err });
    });
    // Its ancestry reaches the original report's gateway span through the failed attempts' retry.
    const names = ancestry(projectionOf(caller.traceId, 't-2')!).map((s) => `${s.service}:${s.name}`);
    expect(names.at(-1)).toBe('gateway:POST /api/v1/content/:module/:type/:id');
    expect(names.filter((n) => n.startsWith('translator:process ')).length).toBeGreaterThanOrEqual(2);
  }, 90_000);
});
