import { ALL_TOPICS } from '@tp/contracts';
import { createLogger, env, parseEnv } from '@tp/runtime';
import { z } from 'zod';

import { createKafka } from './kafka-client.js';
import { topicReplication, topicSettings } from './topic-settings.js';
import { ensureTopics } from './topics.js';

/** `npm run topics`: creates the declared topics (idempotent) and waits for their leaders. */
const settings = parseEnv(
  z.object({
    KAFKA_BROKERS: env.brokers('127.0.0.1:9092'),
    KAFKA_TOPIC_PREFIX: env.string(''),
    ...topicSettings,
  }),
);
const kafka = createKafka({
  brokers: settings.KAFKA_BROKERS,
  clientId: 'create-topics',
  logger: createLogger('create-topics', 'error'),
});
const admin = kafka.admin();
try {
  await admin.connect();
  const result = await ensureTopics(
    admin,
    ALL_TOPICS,
    settings.KAFKA_TOPIC_PREFIX,
    30_000,
    topicReplication(settings.KAFKA_REPLICATION_FACTOR),
  );
  for (const t of result.created) console.log(`created ${t}`);
  for (const t of result.existing) console.log(`exists  ${t}`);
} catch (err) {
  console.error(`topics: ${(err as Error).message} (KAFKA_BROKERS=${settings.KAFKA_BROKERS.join(',')})`);
  process.exitCode = 1;
} finally {
  await admin.disconnect();
}
