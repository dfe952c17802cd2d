import { randomUUID } from 'node:crypto';

import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import {
  consumerGroup,
  topicName,
  type DeadLetter,
  type IntegrationEvent,
  type TranslationCompleted,
  type TranslationRequested,
  type TranslationRequestedData,
} from '@tp/contracts';
import { KafkaConsumer, KafkaProducer, type IncomingMessage } from '@tp/kafka';
import { completedFields, requestedFields, sourceHash, translationMessageKey } from '@tp/pipeline';
import { EventCodec, headerString, newEvent } from '@tp/schemas';
import type { Kafka } from 'kafkajs';

import { createTopics, testKafka, uniquePrefix } from '@tp/test/harness/kafka';
import { silentLogger } from '@tp/test/harness/logger';
import { waitFor } from '@tp/test/harness/wait';
import { startLibreTranslateDouble, type LibreTranslateDouble } from '@tp/test/doubles/libretranslate.double';
import { startTestTranslator, type TestTranslator } from '../../test/translator-fixture.js';
import { RETRY_HEADERS } from './retry-headers.js';

/** A message seen on one of the pipeline's output topics. */
interface Seen {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly key: string | null;
  readonly headers: IncomingMessage['headers'];
  readonly value: Buffer | null;
  readonly event: IntegrationEvent;
}

const codec = new EventCodec();
const prefix = uniquePrefix('engines');
const topics = {
  requested: topicName('translationRequested', prefix),
  retry: topicName('translationRequestedRetry', prefix),
  completed: topicName('translationCompleted', prefix),
  deadLetter: topicName('deadLetter', prefix),
};
// Short backoffs: the first retry is due 0.5-1 s after the failure, the second 1-2 s after that.
const MAX_ATTEMPTS = 3;
const MAX_TEXT_CHARS = 200;

let kafka: Kafka;
let producer: KafkaProducer;
let observer: KafkaConsumer;
let libre: LibreTranslateDouble;
let translator: TestTranslator | undefined;
const seen: Seen[] = [];

beforeAll(async () => {
  kafka = testKafka('engines-int');
  await createTopics(kafka, prefix);
  producer = new KafkaProducer(kafka);
  observer = new KafkaConsumer(kafka, {
    groupId: `${prefix}observer`,
    topics: [topics.completed, topics.retry, topics.deadLetter],
    logger: silentLogger(),
    maxWaitTimeMs: 100,
  });
  libre = await startLibreTranslateDouble();
  [translator] = await Promise.all([
    startTestTranslator({
      KAFKA_TOPIC_PREFIX: prefix,
      LIBRETRANSLATE_URL: libre.url,
      // Failures are the point here; a breaker opening would only add noise.
      BREAKER_THRESHOLD: '1000',
      MAX_TEXT_CHARS: String(MAX_TEXT_CHARS),
      TRANSLATION_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
      TRANSLATION_RETRY_BACKOFF_MS: '1000',
      TRANSLATION_RETRY_MAX_BACKOFF_MS: '2000',
    }),
    observer.start(async (m) => {
      seen.push({
        topic: m.topic,
        partition: m.partition,
        offset: m.offset,
        key: m.key?.toString('utf8') ?? null,
        headers: m.headers,
        value: m.value,
        event: codec.decode(m.value, m.headers),
      });
    }),
  ]);
});

afterAll(async () => {
  await translator?.close();
  await observer?.stop();
  await producer?.disconnect();
  await libre?.close();
});

beforeEach(() => libre.reset());

let entities = 0;

/** A TranslationRequested for a fresh entity, with its topic key. */
function request(data: Partial<TranslationRequestedData> = {}): { event: TranslationRequested; key: string } {
  entities += 1;
  const text = data.text ?? 'Good morning';
  const full: TranslationRequestedData = {
    entityType: 'vendor',
    entityId: `v-${entities}`,
    field: 'name',
    sourceLang: 'en',
    targetLang: 'de',
    sourceHash: sourceHash(text),
    sourceVersion: 3,
    format: 'text',
    moreFields: [],
    ...data,
    text,
  };
  const event = newEvent('TranslationRequested', full, { correlationId: randomUUID(), causationId: 'cmd-1' });
  return { event, key: translationMessageKey(full) };
}

/** A request of several fields of a fresh entity (TranslationRequested v2), the first where v1 had it. */
function batchRequest(
  fields: readonly { field: string; text: string; format?: string }[],
  over: Partial<TranslationRequestedData> = {},
): { event: TranslationRequested; key: string } {
  const [first, ...more] = fields;
  if (!first) throw new Error('a request needs a field');
  return request({
    field: first.field,
    text: first.text,
    format: first.format ?? 'text',
    moreFields: more.map(({ field, text, format }) => ({
      field,
      text,
      sourceHash: sourceHash(text),
      sourceVersion: 3,
      format: format ?? 'text',
    })),
    ...over,
  });
}

/** The fields and texts a TranslationCompleted carries, in order. */
const resultsOf = (completed: TranslationCompleted | undefined): [string, string][] =>
  completed ? completedFields(completed.data).map((r) => [r.field, r.translatedText]) : [];

/** The request a dead letter keeps, decoded. */
const keptRequest = (dead: DeadLetter | undefined): TranslationRequested =>
  codec.decode(dead?.data.originalValue ?? null, dead?.data.originalHeaders ?? {}) as TranslationRequested;

async function produce(...requests: { event: TranslationRequested; key: string }[]): Promise<void> {
  await producer.send(
    topics.requested,
    requests.map(({ event, key }) => ({ key, ...codec.encode(event) })),
  );
}

const completedFor = (requested: TranslationRequested): TranslationCompleted | undefined =>
  seen
    .map((s) => s.event)
    .find(
      (e): e is TranslationCompleted =>
        e.eventType === 'TranslationCompleted' && e.causationId === requested.eventId,
    );

/** Dead letters of a message, found by the event id in its original headers. */
const deadLettersOf = (eventId: string): DeadLetter[] =>
  seen
    .map((s) => s.event)
    .filter(
      (e): e is DeadLetter =>
        e.eventType === 'DeadLetter' && e.data.originalHeaders['tp-event-id']?.toString('utf8') === eventId,
    );

const retriesOf = (eventId: string): Seen[] =>
  seen.filter((s) => s.topic === topics.retry && headerString(s.headers, 'tp-event-id') === eventId);

/** The retry group's committed offset on a partition of the retry topic ('-1' when none). */
async function committedRetryOffset(partition: number): Promise<string> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const [committed] = await admin.fetchOffsets({
      groupId: consumerGroup('enginesRetry', prefix),
      topics: [topics.retry],
    });
    return committed?.partitions.find((p) => p.partition === partition)?.offset ?? '-1';
  } finally {
    await admin.disconnect();
  }
}

const translateCalls = () => libre.requests.filter((r) => r.path === '/translate').length;

describe('engine consumers (translation.requested.v1 -> translation.completed.v1)', () => {
  it('translates a request and publishes TranslationCompleted with the same key, caused by the request', async () => {
    const { event, key } = request({ text: 'Good morning', targetLang: 'de' });
    await produce({ event, key });

    await waitFor('the TranslationCompleted', () => completedFor(event) !== undefined);
    const completed = completedFor(event)!;
    expect(seen.find((s) => s.event === completed)?.key).toBe(key);
    expect(completed).toMatchObject({
      eventVersion: 6,
      correlationId: event.correlationId,
      causationId: event.eventId,
      data: {
        entityType: 'vendor',
        entityId: event.data.entityId,
        field: 'name',
        sourceLang: 'en',
        targetLang: 'de',
        translatedText: 'Guten Morgen',
        sourceHash: event.data.sourceHash,
        sourceVersion: 3,
        engine: 'libretranslate',
        truncated: false,
        detectedSourceLang: null,
        requestedAt: event.occurredAt,
        fallback: false,
        moreResults: [],
        failures: [],
      },
    });
    // The consumer publishes the result itself; nothing is kept as free text through the outbox.
    expect(await translator!.outbox()).toEqual([]);
  });

  it('answers a request the hot cache knows without calling an engine', async () => {
    const first = request({ text: 'Thank you', targetLang: 'fr' });
    await produce(first);
    await waitFor('the first result', () => completedFor(first.event) !== undefined);
    const calls = translateCalls();

    const again = request({ text: 'Thank you', targetLang: 'fr' });
    await produce(again);
    await waitFor('the cached result', () => completedFor(again.event) !== undefined);
    expect(completedFor(again.event)?.data).toMatchObject({
      translatedText: 'Merci',
      engine: 'libretranslate',
    });
    expect(translateCalls()).toBe(calls);
  });

  it('moves a request to the retry topic while the engine answers 503, and publishes the result once it recovers', async () => {
    libre.fail({ type: 'respond', status: 503, body: { error: 'Service Unavailable' } }, { times: 1000 });
    const { event, key } = request({ text: 'Good morning', targetLang: 'fr' });
    const sentAt = Date.now();
    await produce({ event, key });

    await waitFor('the request on the retry topic', () => retriesOf(event.eventId).length > 0);
    libre.reset();
    const [retry] = retriesOf(event.eventId);
    expect(retry?.key).toBe(key);
    expect(retry?.value).toEqual(codec.encode(event).value);
    expect(headerString(retry!.headers, RETRY_HEADERS.attempt)).toBe('2');
    const notBefore = Number(headerString(retry!.headers, RETRY_HEADERS.notBefore));
    expect(notBefore).toBeGreaterThanOrEqual(sentAt + 500);
    expect(notBefore).toBeLessThanOrEqual(Date.now() + 1000);

    await waitFor('the result after the engine recovered', () => completedFor(event) !== undefined);
    expect(Date.now()).toBeGreaterThanOrEqual(notBefore);
    expect(completedFor(event)).toMatchObject({
      correlationId: event.correlationId,
      causationId: event.eventId,
      data: { translatedText: 'Bonjour', engine: 'libretranslate', targetLang: 'fr' },
    });
    expect(seen.find((s) => s.event === completedFor(event))?.key).toBe(key);
    expect(deadLettersOf(event.eventId)).toEqual([]);
  });

  it('dead-letters a request with TRANSLATION_FAILED and its attempts once every attempt failed', async () => {
    libre.fail({ type: 'respond', status: 503, body: { error: 'Service Unavailable' } }, { times: 1000 });
    const { event, key } = request({ text: 'The bus is late', targetLang: 'es' });
    await produce({ event, key });

    await waitFor('the dead letter', () => deadLettersOf(event.eventId).length > 0);
    const [dead] = deadLettersOf(event.eventId);
    expect(dead?.data).toMatchObject({
      errorCode: 'TRANSLATION_FAILED',
      attempts: MAX_ATTEMPTS,
      originalTopic: topics.retry,
      consumerGroup: consumerGroup('enginesRetry', prefix),
    });
    expect(dead?.data.errorMessage).toMatch(/local \(libretranslate\): failed .*503/);
    expect(dead?.data.originalKey?.toString('utf8')).toBe(key);
    expect(dead?.data.originalValue).toEqual(codec.encode(event).value);
    expect(retriesOf(event.eventId).map((s) => headerString(s.headers, RETRY_HEADERS.attempt))).toEqual([
      '2',
      '3',
    ]);
    expect(completedFor(event)).toBeUndefined();
  });

  it('dead-letters at once what can never succeed: an unsupported language, too long a text, bytes that do not decode', async () => {
    const language = request({ sourceLang: 'klingon' });
    const tooLong = request({ text: 'a'.repeat(MAX_TEXT_CHARS + 1) });
    await produce(language, tooLong);
    await producer.send(topics.requested, [{ key: 'junk', value: Buffer.from('not avro'), headers: {} }]);

    await waitFor(
      'three dead letters',
      () =>
        deadLettersOf(language.event.eventId).length > 0 &&
        deadLettersOf(tooLong.event.eventId).length > 0 &&
        seen.some((s) => s.event.eventType === 'DeadLetter' && s.key === 'junk'),
    );
    const group = consumerGroup('engines', prefix);
    expect(deadLettersOf(language.event.eventId)[0]?.data).toMatchObject({
      errorCode: 'UNSUPPORTED_LANGUAGE',
      attempts: 1,
      originalTopic: topics.requested,
      consumerGroup: group,
    });
    expect(deadLettersOf(tooLong.event.eventId)[0]?.data).toMatchObject({
      errorCode: 'TEXT_TOO_LONG',
      attempts: 1,
      originalTopic: topics.requested,
    });
    const junk = seen.find((s) => s.event.eventType === 'DeadLetter' && s.key === 'junk')
      ?.event as DeadLetter;
    expect(junk.data).toMatchObject({ errorCode: 'SCHEMA_HEADER_MISSING', attempts: 1 });
    for (const { event } of [language, tooLong]) {
      expect(retriesOf(event.eventId)).toEqual([]);
      expect(completedFor(event)).toBeUndefined();
    }
    expect(translateCalls()).toBe(0);
  });

  it('does not let a failing request hold back the next request of its partition', async () => {
    // Same key, so the same partition, in this order. No engine serves Korean here, directly or
    // through another language (by LibreTranslate's own list): no retry can help, so it is
    // dead-lettered at its first attempt.
    const failing = request({ sourceLang: 'ko', targetLang: 'de', text: '안녕하세요' });
    const next = { ...request({ text: 'Hello, world!' }), key: failing.key };
    await produce(failing, next);

    await waitFor('the next request translated', () => completedFor(next.event) !== undefined);
    expect(completedFor(next.event)?.data.translatedText).toBe('Hallo, Welt!');
    await waitFor('the failing request dead-lettered', () => deadLettersOf(failing.event.eventId).length > 0);
    expect(deadLettersOf(failing.event.eventId)[0]?.data).toMatchObject({
      errorCode: 'UNSUPPORTED_LANGUAGE_PAIR',
      attempts: 1,
    });
    expect(retriesOf(failing.event.eventId)).toEqual([]);
  });

  it('translates the fields of a request in one engine call and answers them in one TranslationCompleted', async () => {
    const { event, key } = batchRequest([
      { field: 'name', text: 'Blue chair' },
      { field: 'slogan', text: 'The bus is late' },
      { field: 'note', text: 'Green lamp' },
    ]);
    const calls = libre.requests.length;
    await produce({ event, key });

    await waitFor('the TranslationCompleted', () => completedFor(event) !== undefined);
    const completed = completedFor(event)!;
    expect(key).toBe(`vendor:${event.data.entityId}:de`);
    expect(seen.find((s) => s.event === completed)?.key).toBe(key);
    expect(resultsOf(completed)).toEqual([
      ['name', '[de] Blue chair'],
      ['slogan', 'Der Bus hat Verspätung'],
      ['note', '[de] Green lamp'],
    ]);
    expect(completed.data.failures).toEqual([]);
    expect(completedFields(completed.data).map((r) => [r.sourceHash, r.sourceVersion])).toEqual(
      requestedFields(event.data).map((f) => [f.sourceHash, f.sourceVersion]),
    );
    // One engine request with the three texts.
    const sent = libre.requests.slice(calls).filter((r) => r.path === '/translate');
    expect(sent).toHaveLength(1);
    expect(sent[0]?.body).toMatchObject({
      q: ['Blue chair', 'The bus is late', 'Green lamp'],
    });
  });

  it('reads a request of the old shape (v1, one field) still on the topic and answers it', async () => {
    const { event } = request({ text: 'Yellow door', targetLang: 'fr' });
    const v1 = codec.registry.versions('TranslationRequested')[0]!;
    const { format: _format, moreFields: _more, ...v1Data } = event.data;
    const value = v1.type.toBuffer({ ...event, eventVersion: 1, data: v1Data });
    const headers = { ...codec.encode(event).headers, 'tp-schema-fingerprint': v1.fingerprint };
    await producer.send(topics.requested, [{ key: `vendor:${event.data.entityId}:name:fr`, value, headers }]);

    await waitFor('the TranslationCompleted', () => completedFor(event) !== undefined);
    expect(resultsOf(completedFor(event))).toEqual([['name', '[fr] Yellow door']]);
    expect(seen.find((s) => s.event === completedFor(event))?.key).toBe(
      `vendor:${event.data.entityId}:name:fr`,
    );
  });

  it('keeps the markup of an HTML field: tags and untranslatable elements in place, attributes translated', async () => {
    const html = '<p>Hello <b>world</b> and <a href="/x" title="Go home">more</a></p><pre>code</pre>';
    const { event, key } = batchRequest([
      { field: 'body', text: html, format: 'html' },
      { field: 'title', text: 'Red door' },
    ]);
    await produce({ event, key });

    await waitFor('the TranslationCompleted', () => completedFor(event) !== undefined);
    expect(resultsOf(completedFor(event))).toEqual([
      [
        'body',
        '<p>[de] Hello <b>world</b> and <a href="/x" title="[de] Go home">more</a></p><pre>code</pre>',
      ],
      ['title', '[de] Red door'],
    ]);
  });

  it('fails a field on its own: the others are answered, it is dead-lettered alone, naming entity, language and field', async () => {
    const { event, key } = batchRequest([
      { field: 'name', text: 'Red table' },
      { field: 'long', text: 'a'.repeat(MAX_TEXT_CHARS + 1) },
      { field: 'odd', text: 'Brown box', format: 'rtf' },
    ]);
    await produce({ event, key });

    await waitFor(
      'the result and two dead letters',
      () => completedFor(event) !== undefined && deadLettersOf(event.eventId).length === 2,
    );
    const completed = completedFor(event)!;
    expect(resultsOf(completed)).toEqual([['name', '[de] Red table']]);
    expect(completed.data.failures.map(({ field, code, retrying }) => ({ field, code, retrying }))).toEqual([
      { field: 'long', code: 'TEXT_TOO_LONG', retrying: false },
      { field: 'odd', code: 'FORMAT_UNSUPPORTED', retrying: false },
    ]);
    const dead = deadLettersOf(event.eventId);
    expect(dead.map((d) => d.data.errorCode).sort()).toEqual(['FORMAT_UNSUPPORTED', 'TEXT_TOO_LONG']);
    for (const letter of dead) {
      const kept = keptRequest(letter);
      const [field] = requestedFields(kept.data);
      expect(requestedFields(kept.data)).toHaveLength(1);
      expect(letter.data.errorMessage).toContain(`vendor/${event.data.entityId} field ${field?.field} -> de`);
      expect(kept).toMatchObject({ eventId: event.eventId, occurredAt: event.occurredAt });
      expect(letter.data.originalKey?.toString('utf8')).toBe(key);
    }
    expect(retriesOf(event.eventId)).toEqual([]);
  });

  it('retries the fields that failed, dead-letters each alone at the last attempt, and a replay translates it', async () => {
    libre.fail({ type: 'respond', status: 503, body: { error: 'Service Unavailable' } }, { times: 1000 });
    const { event, key } = batchRequest(
      [
        { field: 'name', text: 'Grey wall' },
        { field: 'slogan', text: 'White floor' },
      ],
      { targetLang: 'it' },
    );
    await produce({ event, key });

    await waitFor('two dead letters', () => deadLettersOf(event.eventId).length === 2);
    libre.reset();
    // The request went to the retry topic whole (every field failed), as it was.
    expect(retriesOf(event.eventId).map((r) => headerString(r.headers, RETRY_HEADERS.attempt))).toEqual([
      '2',
      '3',
    ]);
    expect(retriesOf(event.eventId).every((r) => r.value?.equals(codec.encode(event).value))).toBe(true);
    const dead = deadLettersOf(event.eventId);
    expect(dead.map((d) => [d.data.errorCode, d.data.attempts])).toEqual([
      ['TRANSLATION_FAILED', MAX_ATTEMPTS],
      ['TRANSLATION_FAILED', MAX_ATTEMPTS],
    ]);
    expect(dead.map((d) => requestedFields(keptRequest(d).data).map((f) => f.field))).toEqual([
      ['name'],
      ['slogan'],
    ]);
    expect(completedFor(event)).toBeUndefined();

    // A replay puts the dead letter's request back on the request topic.
    const [slogan] = dead.filter((d) => keptRequest(d).data.field === 'slogan');
    const headers = Object.fromEntries(
      Object.entries(slogan!.data.originalHeaders)
        .filter(([name]) => !Object.values(RETRY_HEADERS).includes(name as never))
        .map(([name, value]) => [name, value.toString('utf8')]),
    );
    await producer.send(topics.requested, [{ key, value: slogan!.data.originalValue, headers }]);
    await waitFor('the replayed field translated', () => completedFor(event) !== undefined);
    expect(resultsOf(completedFor(event))).toEqual([['slogan', '[it] White floor']]);
  });

  it('counts results by engine, retries by attempt, and dead letters by group and code', async () => {
    const metrics = await (await fetch(`${translator!.url}/metrics`)).text();
    const value = (pattern: RegExp) => Number(metrics.match(pattern)?.[1] ?? 0);
    expect(
      value(/^translation_requests_completed_total\{engine="libretranslate",cached="false"[^}]*\} (\d+)$/m),
    ).toBeGreaterThanOrEqual(3);
    expect(
      value(/^translation_requests_completed_total\{engine="libretranslate",cached="true"[^}]*\} (\d+)$/m),
    ).toBeGreaterThanOrEqual(1);
    expect(value(/^translation_requests_retried_total\{attempt="1"[^}]*\} (\d+)$/m)).toBeGreaterThanOrEqual(
      2,
    );
    expect(value(/^translation_requests_retried_total\{attempt="2"[^}]*\} (\d+)$/m)).toBeGreaterThanOrEqual(
      1,
    );
    const retryGroup = consumerGroup('enginesRetry', prefix).replaceAll('.', '\\.');
    // One for the request of one field, one for each of the two fields of the batch that failed.
    expect(
      value(
        new RegExp(
          `^pipeline_dead_letters_total\\{group="${retryGroup}",code="TRANSLATION_FAILED"[^}]*\\} (\\d+)$`,
          'm',
        ),
      ),
    ).toBe(3);
    const mainGroup = consumerGroup('engines', prefix).replaceAll('.', '\\.');
    expect(
      value(
        new RegExp(
          `^pipeline_dead_letters_total\\{group="${mainGroup}",code="UNSUPPORTED_LANGUAGE_PAIR"[^}]*\\} (\\d+)$`,
          'm',
        ),
      ),
    ).toBe(1);
  });

  it('stops at once while a retry waits for its due time, leaving it uncommitted', async () => {
    // Two retries on one partition, in one send: the first is due now, the second in 2 minutes.
    // Once the first is translated and committed, the consumer has moved on to the second: waiting.
    const { event, key } = request({ text: 'Good morning', targetLang: 'it' });
    const due = request({ text: 'Thank you', targetLang: 'fr' });
    const retry = (e: TranslationRequested, notBefore: number) => {
      const encoded = codec.encode(e);
      return {
        key,
        value: encoded.value,
        headers: {
          ...encoded.headers,
          [RETRY_HEADERS.attempt]: '2',
          [RETRY_HEADERS.notBefore]: String(notBefore),
        },
      };
    };
    await producer.send(topics.retry, [retry(due.event, Date.now()), retry(event, Date.now() + 120_000)]);
    await waitFor('the waiting retry seen', () => retriesOf(event.eventId).length > 0);
    const waiting = retriesOf(event.eventId)[0]!;
    await waitFor('the due retry translated', () => completedFor(due.event) !== undefined);
    await waitFor(
      'the due retry committed',
      async () => (await committedRetryOffset(waiting.partition)) === waiting.offset,
    );

    const started = Date.now();
    await translator!.close();
    translator = undefined;
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(completedFor(event)).toBeUndefined();

    // Its offset was not committed: the next consumer of the group gets it again.
    expect(await committedRetryOffset(waiting.partition)).toBe(waiting.offset);
  });
});
