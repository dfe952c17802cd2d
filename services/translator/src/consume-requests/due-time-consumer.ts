import {
  groupConsumer,
  runHandler,
  processSpan,
  toIncoming,
  type ConsumerHealth,
  type MessageConsumer,
  type MessageHandler,
} from '@tp/kafka';
import type { Logger } from '@tp/runtime';
import type { Consumer, Kafka } from 'kafkajs';

import { notBeforeOf } from './retry-headers.js';
import { waitUntilDue } from './wait-until-due.js';

export interface DueTimeConsumerOptions {
  readonly groupId: string;
  readonly topic: string;
  readonly logger: Logger;
  /** Partitions handled in parallel; each waits for its own next message. */
  readonly partitionsConsumedConcurrently?: number;
  /** Longest fetch wait; also bounds how long stop() waits for an idle fetch. Default 1000 ms. */
  readonly maxWaitTimeMs?: number;
}

/**
 * Consumer of the retry topic: handles each message only once its `tp-not-before` time has come.
 * Like KafkaConsumer (the same group settings and handler run: groupConsumer, runHandler, from
 * libs/kafka) it commits a message's offset only after the handler succeeded, but it also
 * waits in between, which KafkaConsumer's handler cannot do for long: the wait is cut in slices with
 * a heartbeat after each (kafkajs sends none on its own while a batch is in hand), so the group keeps
 * the member however long the backoff, and stop() cuts the wait short (the message stays uncommitted
 * and comes again). A message due later holds back the messages behind it on its partition; they
 * only wait, at most one backoff.
 */
export class DueTimeConsumer implements MessageConsumer {
  private readonly consumer: Consumer;
  private readonly stopping = new AbortController();
  private readonly currentHealth: () => ConsumerHealth;

  constructor(
    kafka: Kafka,
    private readonly options: DueTimeConsumerOptions,
  ) {
    ({ consumer: this.consumer, health: this.currentHealth } = groupConsumer(kafka, options));
  }

  health(): ConsumerHealth {
    return this.currentHealth();
  }

  async start(handler: MessageHandler): Promise<void> {
    const { topic: subscribed, partitionsConsumedConcurrently = 1 } = this.options;
    const { signal } = this.stopping;
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: [subscribed], fromBeginning: true });
    await this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently,
      eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
        const { topic, partition } = batch;
        const keepWaiting = () => isRunning() && !isStale();
        for (const message of batch.messages) {
          if (signal.aborted || !keepWaiting()) break;
          const due = await waitUntilDue(notBeforeOf(message.headers ?? {}), {
            heartbeat,
            keepWaiting,
            signal,
          });
          if (!due) break;
          const incoming = toIncoming(topic, partition, message);
          await runHandler(heartbeat, () => processSpan(incoming, () => handler(incoming)));
          resolveOffset(message.offset);
          // One commit per message: retries are few, and each may have waited long for its turn.
          const offset = (BigInt(message.offset) + 1n).toString();
          await this.consumer.commitOffsets([{ topic, partition, offset }]);
          await heartbeat();
        }
      },
    });
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.consumer.disconnect();
  }
}
