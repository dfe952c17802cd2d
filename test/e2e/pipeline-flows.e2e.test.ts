// The pipeline keeps flowing (issue #15), as processes: one gateway, two workers and two translators
// (each kind one consumer group), the LibreTranslate double as the only engine (`[<target>] <text>`).
// The request, retry and result topics take 256 KiB per message batch, as a cluster may be configured:
// what the pipeline produces in one go is far more, so it must split what it sends. Each test ends
// with later traffic going through.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DeadLetterEntry, OutboxMessage } from '@tp/db';
import { ConfigResourceTypes, type Kafka } from 'kafkajs';

import {
  libreTranslateFaults,
  startLibreTranslateDouble,
  type LibreTranslateDouble,
} from '../doubles/libretranslate.double.js';
import { createTopics, testBrokers, testKafka, uniquePrefix } from '../harness/kafka.js';
import { startPipelineStack, watchForRegressions, type PipelineStack } from '../harness/pipeline-stack.js';
import { pipelineIdle } from '../harness/topic-census.js';
import { waitFor } from '../harness/wait.js';

const prefix = uniquePrefix('flows');
const SMALL_TOPIC_BYTES = 256 * 1024;
/** Target languages the double translates English into. */
const TARGETS = ['de', 'fr', 'es', 'it', 'ja', 'pt', 'zh-CN', 'zh-TW'];
let kafka: Kafka;
let libre: LibreTranslateDouble;
let stack: PipelineStack;
let regressions: () => Promise<string[]>;

beforeAll(async () => {
  kafka = testKafka('flows-e2e');
  await createTopics(kafka, prefix);
  const admin = kafka.admin();
  await admin.connect();
  await admin.alterConfigs({
    validateOnly: false,
    resources: ['translation.requested.v1', 'translation.requested.retry.v1', 'translation.completed.v1'].map(
      (name) => ({
        type: ConfigResourceTypes.TOPIC,
        name: `${prefix}${name}`,
        configEntries: [{ name: 'max.message.bytes', value: String(SMALL_TOPIC_BYTES) }],
      }),
    ),
  });
  await admin.disconnect();
  libre = await startLibreTranslateDouble();
  stack = await startPipelineStack({
    kafkaBrokers: testBrokers().join(','),
    topicPrefix: prefix,
    libreTranslateUrl: libre.url,
    workers: 2,
    translators: 2,
    // A retry schedule shortened by configuration (the defaults ride out an hour): 100 ms doubling
    // to 400 ms, still 40 tries, so at least 7.8 s of waiting before a request would be dead-lettered.
    // The LibreTranslate double is the translators' only engine (no APy: the real one serves en -> es and
    // cannot be stopped for one file), so the outage below takes every engine down.
    env: { TRANSLATION_RETRY_BACKOFF_MS: '100', TRANSLATION_RETRY_MAX_BACKOFF_MS: '400', APERTIUM_URL: '' },
  });
  regressions = await watchForRegressions(stack.sql);
  const config = await stack.call('PUT', '/api/admin/translate/config', stack.adminKey, {
    target_languages: TARGETS,
  });
  expect(config).toMatchObject({ status: 200 });
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await libre?.close();
}, 60_000);

const report = (type: string, id: string, version: number, fields: Record<string, string>) =>
  stack.call('POST', `/api/v1/content/catalog/${type}/${id}`, stack.clientKey, {
    source_lang: 'en',
    source_version: version,
    fields,
  });

/**
 * The rows `fields` of entity `id` at `version` must end as, one per field and target language, with
 * the source text (stored rows are read without the double's `[<lang>] ` marks: a long text is
 * translated in chunks, each marked).
 */
const expectedRows = (id: string, version: number, fields: Record<string, string>) =>
  Object.entries(fields)
    .flatMap(([field, text]) => TARGETS.map((lang) => `${id} ${field} ${lang} ${version} ${text}`))
    .sort();

/** Stored rows of `type` as expectedRows writes them, each text without the double's marks. */
async function storedRows(type: string): Promise<string[]> {
  // The double marks with its own codes (`[zh-Hans] ` for zh-CN).
  return (await stack.translations(type)).map((row) => row.replace(/\[[A-Za-z-]+\] /g, ''));
}

async function untilTranslated(type: string, expected: readonly string[], timeoutMs = 120_000) {
  try {
    await waitFor(
      `${expected.length} ${type} translations`,
      async () => {
        const stored = new Set(await storedRows(type));
        return expected.every((row) => stored.has(row));
      },
      timeoutMs,
      250,
    );
  } catch (err) {
    const stored = await storedRows(type);
    const waiting = await stack.orm.em
      .fork()
      .find(OutboxMessage, { publishedAt: null }, { fields: ['lastError'] });
    const outbox = {
      n: waiting.length,
      errors: [...new Set(waiting.map((row) => row.lastError))].slice(0, 3),
    };
    throw new Error(
      `${(err as Error).message}: ${stored.length} stored; outbox ${JSON.stringify(outbox)}\n${stack.logs()}`,
      { cause: err },
    );
  }
}

const deadLetters = async () => (await stack.orm.em.fork().find(DeadLetterEntry, {})).map((r) => r.errorCode);

describe('the pipeline keeps flowing', () => {
  it('delivers a report far larger than a topic batch: 10 fields of 45,000 characters into 8 languages', async () => {
    const big = Object.fromEntries(
      Array.from({ length: 10 }, (_, i) => [`f${i}`, `field ${i} `.repeat(5625)]),
    );
    expect((await report('article', 'big', 1, big)).status).toBe(202);
    const later = { name: 'reported after the big one' };
    expect((await report('article', 'later', 1, later)).status).toBe(202);

    await untilTranslated(
      'article',
      [...expectedRows('big', 1, big), ...expectedRows('later', 1, later)],
      240_000,
    );
    expect(await deadLetters()).toEqual([]);
  }, 300_000);

  it('keeps per-entity order across two workers and two translators: a burst of versions ends at the last', async () => {
    const versions = 12;
    const fieldsAt = (v: number) => ({ name: `name v${v}`, slogan: `slogan v${v}` });
    // As fast as the gateway takes them, several in flight: replicas race on every step.
    const answers = await Promise.all(
      Array.from({ length: versions }, (_, i) => report('shop', 'burst', i + 1, fieldsAt(i + 1))),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(versions).fill(202));

    await untilTranslated('shop', expectedRows('burst', versions, fieldsAt(versions)));
    // Settled (nothing in flight: a late older version would have landed by now): exactly version N's
    // rows, and no update ever took a row back to an older version.
    await waitFor('the pipeline idle', () => pipelineIdle(kafka, stack.orm, prefix), 60_000, 250);
    expect(await storedRows('shop')).toEqual(expectedRows('burst', versions, fieldsAt(versions)));
    expect(await regressions()).toEqual([]);

    const later = { name: 'after the burst' };
    expect((await report('shop', 'later', 1, later)).status).toBe(202);
    await untilTranslated('shop', expectedRows('later', 1, later));
  }, 180_000);

  it('loses nothing while every engine is down for longer than the old retry window', async () => {
    const retriedBefore = await retried(6);
    // Every translation fails: the translators' only engine answers 500 until reset.
    libre.fail(libreTranslateFaults.cannotTranslate(), { times: 1_000_000, path: '/translate' });
    const during = Array.from({ length: 5 }, (_, i) => [`o-${i}`, { name: `during outage ${i}` }] as const);
    for (const [id, fields] of during) expect((await report('outage', id, 1, fields)).status).toBe(202);
    // Requests are failing and waiting on the retry topic. The old defaults gave up after 5 tries
    // (within about a second); this outage lasts until every request has failed its 6th try.
    const requests = during.length * TARGETS.length;
    await waitFor(
      `${requests} requests failed a 6th time`,
      async () => (await retried(6)) - retriedBefore >= requests,
      60_000,
      250,
    );
    expect(await storedRows('outage')).toEqual([]);
    expect(await deadLetters()).toEqual([]);
    libre.reset();

    const later = { name: 'after the outage' };
    expect((await report('outage', 'later', 1, later)).status).toBe(202);
    await untilTranslated('outage', [
      ...during.flatMap(([id, fields]) => expectedRows(id, 1, fields)),
      ...expectedRows('later', 1, later),
    ]);
    expect(await deadLetters()).toEqual([]);
  }, 180_000);
});

/** Requests the translators sent to the retry topic after their `attempt`th try, summed over both. */
async function retried(attempt: number): Promise<number> {
  let sum = 0;
  for (const [name, proc] of stack.processes) {
    if (!name.startsWith('translator')) continue;
    const text = await (await fetch(`${proc.url}/metrics`)).text();
    for (const match of text.matchAll(/^translation_requests_retried_total\{([^}]*)\} (\d+)/gm))
      if (match[1]!.includes(`attempt="${attempt}"`)) sum += Number(match[2]);
  }
  return sum;
}
