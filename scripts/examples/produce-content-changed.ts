// Produces one ContentChanged event straight to Kafka, as a business system that prefers Kafka to
// the HTTP command would. Run: npx tsx --conditions=@tp/source scripts/examples/produce-content-changed.ts
// Env: KAFKA_BROKERS (default 127.0.0.1:9092), KAFKA_TOPIC_PREFIX. See docs/pipeline.md.
import { randomUUID } from 'node:crypto';

import { topicName } from '@tp/contracts';
import { EventCodec, newEvent } from '@tp/schemas';
import { Kafka } from 'kafkajs';

const kafka = new Kafka({
  clientId: 'example-producer',
  brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','),
});
const event = newEvent(
  'ContentChanged',
  {
    module: 'catalog',
    entityType: 'vendor',
    entityId: process.argv[2] ?? 'v-kafka-1',
    sourceLang: 'zh-CN',
    sourceVersion: Date.now(), // any number that grows with each change of the entity
    fields: [
      { name: 'name', text: '你好' },
      { name: 'slogan', text: '世界' },
    ],
  },
  { correlationId: randomUUID() },
);
// The codec writes Avro with the schema of schemas/avro/content-changed/ and the tp-* headers
// (schema fingerprint, event id, correlation id) the planner reads.
const { value, headers } = new EventCodec().encode(event);
const producer = kafka.producer({ idempotent: true });
await producer.connect();
await producer.send({
  topic: topicName('contentChanged', process.env.KAFKA_TOPIC_PREFIX ?? ''),
  acks: -1,
  messages: [{ key: `${event.data.entityType}:${event.data.entityId}`, value, headers }],
});
await producer.disconnect();
console.log(`sent ContentChanged ${event.eventId} for vendor ${event.data.entityId}`);
