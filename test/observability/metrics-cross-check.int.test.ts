import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { startTestGateway, type TestGateway } from '../../services/gateway/test/gateway-fixture.js';
import { startTestNli, type TestNli } from '../../services/nli/test/nli-fixture.js';
import {
  startTestTranslator,
  type TestTranslator,
} from '../../services/translator/test/translator-fixture.js';
import { loadWorkerConfig } from '../../services/worker/src/config.js';
import { startWorker } from '../../services/worker/src/worker.js';
import { createTestDatabase, type TestDatabase } from '../harness/databases.js';
import { createTopics, testKafka, uniquePrefix } from '../harness/kafka.js';
import { REPO_ROOT } from '../harness/processes.js';

/**
 * Every metric the alert rules and the Grafana dashboard query exists on some service's /metrics:
 * a renamed or removed metric would otherwise leave an alert that can never fire. The four services
 * run in-process on ephemeral ports (their fixtures), with no traffic: a metric is declared on
 * /metrics (# TYPE) from the start, even before it has a sample.
 */
const OBSERVABILITY = join(REPO_ROOT, 'infra/observability');
/** Made by Prometheus itself, not by a service. */
const FROM_PROMETHEUS = new Set(['up']);
const PROMQL_WORDS = new Set(['and', 'or', 'unless', 'bool', 'offset']);

/** The metric names a PromQL expression reads (functions, labels, strings and ranges left out). */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '')
    .replace(/\$\w+/g, '');
  return [...bare.matchAll(/(?<![\w:.])([A-Za-z_:][\w:]*)\s*(\()?/g)]
    .filter(([, name, call]) => call === undefined && !PROMQL_WORDS.has(name!))
    .map(([, name]) => name!);
}

/** The names a /metrics page serves: each declared metric, with a histogram's series suffixes. */
function served(text: string): string[] {
  return [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].flatMap(([, name, type]) => {
    if (type === 'histogram') return [`${name}_bucket`, `${name}_sum`, `${name}_count`];
    if (type === 'summary') return [name!, `${name}_sum`, `${name}_count`];
    return [name!];
  });
}

async function alertExpressions(): Promise<string[]> {
  const text = await readFile(join(OBSERVABILITY, 'alerts.yml'), 'utf8');
  const exprs = [...text.matchAll(/^\s+expr:\s*(.+)$/gm)].map(([, expr]) => expr!.trim());
  // A folded or literal block would be read as `>` or `|` here: alerts.yml keeps each expr on one line.
  for (const expr of exprs) expect(expr).not.toMatch(/^[>|]/);
  return exprs;
}

async function dashboardExpressions(): Promise<string[]> {
  const path = join(OBSERVABILITY, 'grafana/dashboards/platform.json');
  const dashboard = JSON.parse(await readFile(path, 'utf8')) as {
    panels: { targets?: { expr: string }[] }[];
  };
  return dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
}

let gateway: TestGateway;
let translator: TestTranslator;
let nli: TestNli;
let workerDb: TestDatabase;
let worker: Awaited<ReturnType<typeof startWorker>>;

beforeAll(async () => {
  const prefix = uniquePrefix('metrics');
  workerDb = await createTestDatabase();
  await createTopics(testKafka('metrics'), prefix);
  worker = await startWorker({
    ...loadWorkerConfig({
      DATABASE_URL: workerDb.url,
      REDIS_URL: process.env.REDIS_URL,
      KAFKA_BROKERS: process.env.KAFKA_BROKERS,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      KAFKA_TOPIC_PREFIX: prefix,
      REDIS_KEY_PREFIX: `test:${randomBytes(4).toString('hex')}:`,
    }),
    PORT: 0,
  });
  [gateway, translator, nli] = await Promise.all([startTestGateway(), startTestTranslator(), startTestNli()]);
}, 90_000);

afterAll(async () => {
  await Promise.all([gateway?.close(), translator?.close(), nli?.close(), worker?.stop()]);
  await workerDb?.drop();
});

async function servedByAll(): Promise<Map<string, string[]>> {
  const urls = {
    gateway: gateway.url,
    translator: translator.url,
    nli: nli.url,
    worker: `http://127.0.0.1:${worker.port}`,
  };
  const byName = new Map<string, string[]>();
  for (const [service, url] of Object.entries(urls)) {
    const res = await fetch(`${url}/metrics`);
    expect(res.status).toBe(200);
    for (const name of served(await res.text())) byName.set(name, [...(byName.get(name) ?? []), service]);
  }
  return byName;
}

describe('the metrics of the alert rules and the dashboard', () => {
  it('are read out of PromQL without functions, labels, strings, ranges or Grafana variables', () => {
    expect(
      metricNames(
        'sum by (job, le) (rate(a_seconds_bucket{status=~"5..",x="y z"}[$__rate_interval])) / on (job) b_total offset 5m > 0.05 and up',
      ),
    ).toEqual(['a_seconds_bucket', 'b_total', 'up']);
  });

  it('every metric an alert rule or a dashboard panel reads is served on some service /metrics', async () => {
    const used = new Set(
      [...(await alertExpressions()), ...(await dashboardExpressions())].flatMap(metricNames),
    );
    // The rules and the dashboard read the operator's metrics; an empty set would prove nothing.
    expect(used.size).toBeGreaterThan(20);
    const byName = await servedByAll();

    const missing = [...used].filter((name) => !FROM_PROMETHEUS.has(name) && !byName.has(name)).sort();
    expect(missing).toEqual([]);
  });

  it('the operator metrics of issue 22 are each served by the service that owns them', async () => {
    const byName = await servedByAll();
    const owners = Object.fromEntries(
      [
        'outbox_backlog_rows',
        'outbox_backlog_oldest_age_seconds',
        'kafka_consumer_lag',
        'kafka_consumer_rebalances_total',
        'translation_engine_pair_duration_seconds_count',
        'translation_engine_breaker_transitions_total',
        'translation_cache_lookups_total',
        'nli_model_ready',
      ].map((name) => [name, byName.get(name)]),
    );
    expect(owners).toEqual({
      outbox_backlog_rows: ['worker'],
      outbox_backlog_oldest_age_seconds: ['worker'],
      kafka_consumer_lag: ['translator'],
      kafka_consumer_rebalances_total: ['translator', 'worker'],
      translation_engine_pair_duration_seconds_count: ['translator'],
      translation_engine_breaker_transitions_total: ['translator'],
      translation_cache_lookups_total: ['translator'],
      nli_model_ready: ['nli'],
    });
  });
});
