import { createHash, randomUUID } from 'node:crypto';

import { afterAll, describe, expect, it } from '@jest/globals';
import { topicName, type TranslationCompleted } from '@tp/contracts';
import { KafkaConsumer, KafkaProducer } from '@tp/kafka';
import { EventCodec, newEvent } from '@tp/schemas';

import { createTopics, testKafka, uniquePrefix } from '@tp/test/harness/kafka';
import { silentLogger } from '@tp/test/harness/logger';
import { waitFor } from '@tp/test/harness/wait';
import { startTestTranslator, tinyModelsDir, type TestTranslator } from '../../test/translator-fixture.js';

interface ReadyReply {
  dependencies: Record<string, { status: string; required: boolean; error?: string }>;
}

const codec = new EventCodec();
const prefix = uniquePrefix('engines-late');
const kafka = testKafka('engines-late');
const cleanups: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('engine consumers when the topics do not exist yet', () => {
  it('starts the translator anyway (ready, the consumers shown down on /ready), and starts consuming once the topics are created', async () => {
    const models = await tinyModelsDir();
    cleanups.push(models.remove);
    const translator: TestTranslator = await startTestTranslator({
      KAFKA_TOPIC_PREFIX: prefix,
      ...models.settings,
    });
    cleanups.push(() => translator.close());
    // The synchronous API does not depend on the pipeline's topics.
    expect((await translator.translate({ text: '你好', source: 'zh-CN', target: 'en' })).status).toBe(200);
    const waiting = await translator.get<ReadyReply>('/ready');
    expect(waiting.status).toBe(200);
    expect(waiting.body.dependencies['engine-consumers']).toMatchObject({
      status: 'down',
      required: false,
      error: expect.stringContaining(`waiting for the topics ${topicName('translationRequested', prefix)}`),
    });

    await createTopics(kafka, prefix);
    const results: TranslationCompleted[] = [];
    const observer = new KafkaConsumer(kafka, {
      groupId: `${prefix}observer`,
      topics: [topicName('translationCompleted', prefix)],
      logger: silentLogger(),
    });
    await observer.start(async (m) => {
      results.push(codec.decode(m.value, m.headers) as TranslationCompleted);
    });
    cleanups.push(() => observer.stop());
    const producer = new KafkaProducer(kafka);
    cleanups.push(() => producer.disconnect());

    const text = '我们喜欢猫和狗！';
    const request = newEvent(
      'TranslationRequested',
      {
        entityType: 'vendor',
        entityId: 'v-late',
        field: 'slogan',
        sourceLang: 'zh-CN',
        targetLang: 'en',
        text,
        sourceHash: createHash('sha256').update(text, 'utf8').digest('hex'),
        sourceVersion: 1,
        format: 'text',
        moreFields: [],
      },
      { correlationId: randomUUID() },
    );
    await producer.send(topicName('translationRequested', prefix), [
      { key: 'vendor:v-late:slogan:en', ...codec.encode(request) },
    ]);

    // The consumers look for the topics every 5 s.
    await waitFor('the result', () => results.some((r) => r.causationId === request.eventId), 30_000);
    expect(results.find((r) => r.causationId === request.eventId)?.data).toMatchObject({
      translatedText: 'we like cat and dog!',
      engine: 'offline',
      sourceLang: 'zh-CN',
    });
    // The retry topic's consumer may still be joining its group when the first result is out.
    await waitFor(
      'both engine consumers up on /ready',
      async () =>
        (await translator.get<ReadyReply>('/ready')).body.dependencies['engine-consumers']?.status === 'up',
      15_000,
    );
  });
});
