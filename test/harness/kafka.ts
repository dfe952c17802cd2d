import { randomBytes } from 'node:crypto';

import { ALL_TOPICS } from '@tp/contracts';
import { createKafka, ensureTopics } from '@tp/kafka';
import type { Kafka } from 'kafkajs';

import { silentLogger } from './logger.js';

export function testBrokers(): string[] {
  const brokers = process.env.KAFKA_BROKERS;
  if (!brokers) throw new Error('KAFKA_BROKERS is not set; run the tests through jest (global setup)');
  return brokers.split(',');
}

export function testKafka(clientId = 'test'): Kafka {
  return createKafka({ brokers: testBrokers(), clientId, logger: silentLogger() });
}

/** A topic prefix no other test (or earlier run) uses. */
export function uniquePrefix(label: string): string {
  return `test.${label}.${randomBytes(4).toString('hex')}.`;
}

/** Creates every declared topic under the prefix and waits for leaders. */
export async function createTopics(kafka: Kafka, prefix: string): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await ensureTopics(admin, ALL_TOPICS, prefix);
  } finally {
    await admin.disconnect();
  }
}
