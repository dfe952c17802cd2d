// Produces one ContentChanged event (or, with `delete`, one ContentDeleted) straight to Kafka, as a
// business system that prefers Kafka to the HTTP commands would. Run:
//   npx tsx --conditions=@tp/source scripts/examples/produce-content-changed.ts [entityId] [delete]
//     [--module catalog] [--type vendor]
// Env: KAFKA_BROKERS (default 127.0.0.1:9092), KAFKA_TOPIC_PREFIX. See docs/pipeline.md. The planner
// applies the rules of the HTTP API (libs/pipeline content-rules.ts): a type such as `Vendor` ends as a
// CONTENT_INVALID dead letter, and nothing of it is stored.
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';

import { topicName } from '@tp/contracts';
import { EventCodec, newEvent } from '@tp/schemas';
import { Kafka, Partitioners } from 'kafkajs';

const kafka = new Kafka({
  clientId: 'example-producer',
  brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','),
});
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { module: { type: 'string', default: 'catalog' }, type: { type: 'string', default: 'vendor' } },
});
const [entityId = 'v-kafka-1', action] = positionals;
const entity = { module: values.module, entityType: values.type, entityId };
// Any number that grows with each change of the entity; a deletion may leave it out (null: the
// highest stored version).
const sourceVersion = Date.now();
const context = { correlationId: randomUUID() };
const event =
  action === 'delete'
    ? newEvent('ContentDeleted', { ...entity, sourceVersion }, context)
    : newEvent(
        'ContentChanged',
        {
          ...entity,
          sourceLang: 'en',
          sourceVersion,
          fields: [
            { name: 'name', text: 'Fresh vegetables', format: 'text' },
            { name: 'slogan', text: 'The vendor sells fresh organic vegetables.', format: 'text' },
          ],
        },
        context,
      );
// The codec writes Avro with the schema of schemas/avro/content-changed/ (or content-deleted/) and
// the tp-* headers (schema fingerprint, event id, correlation id) the planner reads.
const { value, headers } = new EventCodec().encode(event);
const producer = kafka.producer({ idempotent: true, createPartitioner: Partitioners.DefaultPartitioner });
await producer.connect();
await producer.send({
  topic: topicName('contentChanged', process.env.KAFKA_TOPIC_PREFIX ?? ''),
  acks: -1,
  messages: [{ key: `${event.data.entityType}:${event.data.entityId}`, value, headers }],
});
await producer.disconnect();
console.log(`sent ${event.eventType} ${event.eventId} for ${entity.entityType} ${entityId}`);
