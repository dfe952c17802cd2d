import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { topicName } from '@tp/contracts';
import { KafkaProducer } from '@tp/kafka';
import type { Kafka } from 'kafkajs';

import { createTopics, testKafka, uniquePrefix } from '@tp/test/harness/kafka';
import { silentLogger } from '@tp/test/harness/logger';
import { waitFor } from '@tp/test/harness/wait';
import { DueTimeConsumer } from './due-time-consumer.js';
import { RETRY_HEADERS } from './retry-headers.js';

const prefix = uniquePrefix('due-time');
const topic = topicName('translationRequestedRetry', prefix);
let kafka: Kafka;
let producer: KafkaProducer;

beforeAll(async () => {
  kafka = testKafka('due-time-int');
  await createTopics(kafka, prefix);
  producer = new KafkaProducer(kafka);
  await producer.connect();
});

afterAll(async () => {
  await producer.disconnect();
});

describe('the retry topic consumer', () => {
  it('handles a message once it is due, and gets it again after its handler threw a TypeError', async () => {
    const groupId = `${prefix}retry-group`;
    const consumer = new DueTimeConsumer(kafka, { groupId, topic, logger: silentLogger() });
    const calls: number[] = [];
    let handled: string | undefined;
    await consumer.start(async (message) => {
      calls.push(Date.now());
      // The first call fails as a bug would; kafkajs alone would stop the consumer for good.
      if (calls.length === 1) throw new TypeError("Cannot read properties of undefined (reading 'text')");
      handled = message.value?.toString('utf8');
    });
    try {
      await waitFor('the group join', () => consumer.health().state === 'consuming', 15_000);
      const notBefore = Date.now() + 800;
      await producer.send(topic, [
        {
          key: 'vendor:v-1:name:de',
          value: Buffer.from('payload'),
          headers: { [RETRY_HEADERS.notBefore]: String(notBefore) },
        },
      ]);
      await waitFor('the message handled', () => handled !== undefined, 20_000);
      expect(handled).toBe('payload');
      expect(calls).toHaveLength(2);
      expect(calls[0]).toBeGreaterThanOrEqual(notBefore);
      expect(consumer.health().state).toBe('consuming');
    } finally {
      await consumer.stop();
    }
    expect(consumer.health()).toMatchObject({ groupId, state: 'stopped' });
  });
});
