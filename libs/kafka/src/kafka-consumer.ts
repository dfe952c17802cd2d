import type { Logger } from '@tp/runtime';
import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';

import { followHealth, type ConsumerHealth } from './consumer-health.js';
import type { BatchHandler, IncomingMessage, MessageConsumer, MessageHandler } from './port.js';
import { countRequests } from './request-count.js';
import { processSpan } from './tracing.js';

export interface KafkaConsumerOptions {
  readonly groupId: string;
  readonly topics: readonly string[];
  readonly logger: Logger;
  /** Where a group without committed offsets starts. Default: the beginning (nothing is skipped). */
  readonly fromBeginning?: boolean;
  /** Commit at least every this many handled messages inside a large batch. */
  readonly commitEvery?: number;
  /** Partitions handled in parallel (order is kept within each partition). */
  readonly partitionsConsumedConcurrently?: number;
  /** Longest a fetch waits for new data; also bounds how long stop() waits. Default 1000 ms. */
  readonly maxWaitTimeMs?: number;
}

/**
 * Consumer that commits an offset only after the handler succeeded for that message and every earlier
 * one in the partition. A handler error commits the successful prefix, then rethrows, so kafkajs
 * redelivers from the failed message (at-least-once; handlers must be idempotent).
 *
 * start() hands over one message at a time; startBatches() hands over up to `maxBatch` consecutive
 * messages of a partition at once, for handlers that do one round trip per batch instead of per
 * message (see publishingBatchHandler).
 */
export class KafkaConsumer implements MessageConsumer {
  private readonly consumer: Consumer;
  private stopping = false;
  private readonly batches = new Set<Promise<void>>();
  private readonly currentHealth: () => ConsumerHealth;

  constructor(
    kafka: Kafka,
    private readonly options: KafkaConsumerOptions,
  ) {
    ({ consumer: this.consumer, health: this.currentHealth } = groupConsumer(kafka, options));
  }

  health(): ConsumerHealth {
    return this.currentHealth();
  }

  start(handler: MessageHandler): Promise<void> {
    return this.run((messages) => {
      const message = messages[0] as IncomingMessage;
      return processSpan(message, () => handler(message));
    }, 1);
  }

  /** Like start(), with up to `maxBatch` consecutive messages of one partition per handler call. */
  startBatches(handler: BatchHandler, maxBatch = 500): Promise<void> {
    return this.run(handler, maxBatch);
  }

  private async run(handler: BatchHandler, chunkSize: number): Promise<void> {
    const {
      topics,
      fromBeginning = true,
      commitEvery = 100,
      partitionsConsumedConcurrently = 1,
    } = this.options;
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: [...topics], fromBeginning });
    await this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently,
      eachBatch: (payload) => {
        const done = this.handleBatch(payload, handler, chunkSize, commitEvery);
        this.batches.add(done);
        return done.finally(() => this.batches.delete(done));
      },
    });
  }

  /** The fetched batch in chunks of `chunkSize`; committed at least every `commitEvery` messages. */
  private async handleBatch(
    { batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload,
    handler: BatchHandler,
    chunkSize: number,
    commitEvery: number,
  ): Promise<void> {
    const { topic, partition, messages } = batch;
    let handled: string | undefined;
    let sinceCommit = 0;
    const commit = async () => {
      if (handled === undefined) return;
      const offset = (BigInt(handled) + 1n).toString();
      await this.consumer.commitOffsets([{ topic, partition, offset }]);
      sinceCommit = 0;
    };
    try {
      for (let first = 0; first < messages.length; first += chunkSize) {
        if (this.stopping || !isRunning() || isStale()) break;
        const chunk = messages.slice(first, first + chunkSize);
        await runHandler(heartbeat, () => handler(chunk.map((m) => toIncoming(topic, partition, m))));
        const last = (chunk[chunk.length - 1] as KafkaMessage).offset;
        resolveOffset(last);
        handled = last;
        sinceCommit += chunk.length;
        if (sinceCommit >= commitEvery) await commit();
        await heartbeat();
      }
    } finally {
      await commit().catch((err: unknown) =>
        this.options.logger.warn(
          { err, topic, partition },
          'offset commit failed; messages will be redelivered',
        ),
      );
    }
  }

  /**
   * Lets the batch in hand finish its current message and commit, then leaves the group: the group is
   * still joined while that last commit is made, so nothing handled is delivered again.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.allSettled([...this.batches]);
    await this.consumer.disconnect();
  }
}

/**
 * A handler's error as kafkajs sees it. kafkajs retries a failed batch, but a TypeError, RangeError,
 * ReferenceError or SyntaxError, or any error marked `retriable: false`, makes it stop the consumer
 * for good, with the process still up. Wrapped, every handler error is retried: the message comes
 * again (permanent failures are the dead-letter guard's business, before they get here).
 */
export class HandlerFailure extends Error {
  override readonly name = 'HandlerFailure';
  readonly retriable = true;

  constructor(cause: unknown) {
    super(`handler failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

const SESSION_TIMEOUT_MS = 10_000;
const HEARTBEAT_MS = 3000;
/**
 * What one fetch brings into a consumer at most: 1 MiB of a partition, 10 MiB in all (kafkajs's own
 * defaults, stated here because they bound each consumer's memory: a fetched batch is handled before
 * the next fetch of its partition; docs/pipeline.md, "Large loads stay bounded").
 */
export const FETCH_LIMITS = { maxBytesPerPartition: 1024 * 1024, maxBytes: 10 * 1024 * 1024 } as const;

/**
 * A kafkajs consumer with the settings every consumer of the project uses, and its health followed:
 * no topic auto-creation, a 10 s session and FETCH_LIMITS. A member that vanished (a crash, or a broker restart
 * it could not leave the group through) holds its partitions until the session passes; live members
 * heartbeat every 3 s, also while a handler runs (runHandler).
 */
export function groupConsumer(
  kafka: Kafka,
  options: { readonly groupId: string; readonly logger: Logger; readonly maxWaitTimeMs?: number },
): { consumer: Consumer; health: () => ConsumerHealth } {
  const consumer = kafka.consumer({
    groupId: options.groupId,
    allowAutoTopicCreation: false,
    maxWaitTimeInMs: options.maxWaitTimeMs ?? 1000,
    sessionTimeout: SESSION_TIMEOUT_MS,
    heartbeatInterval: HEARTBEAT_MS,
    ...FETCH_LIMITS,
  });
  countRequests(consumer, 'consumer');
  return { consumer, health: followHealth(consumer, options.groupId, options.logger) };
}

/**
 * Runs a handler inside eachBatch: with a heartbeat every HEARTBEAT_MS meanwhile, and whatever it
 * throws handed to kafkajs as a HandlerFailure (retried, never a reason to stop the consumer).
 */
export async function runHandler(heartbeat: () => Promise<void>, work: () => Promise<void>): Promise<void> {
  try {
    await whileBeating(heartbeat, work);
  } catch (err) {
    throw new HandlerFailure(err);
  }
}

/**
 * Runs `work` with a heartbeat every HEARTBEAT_MS: kafkajs sends none on its own while a batch is in
 * hand, and a batch of slow requests (engines timing out and retrying) can outlast the session.
 */
async function whileBeating<T>(heartbeat: () => Promise<void>, work: () => Promise<T>): Promise<T> {
  const timer = setInterval(() => void heartbeat().catch(() => undefined), HEARTBEAT_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/** A kafkajs message as the port's IncomingMessage. */
export function toIncoming(topic: string, partition: number, m: KafkaMessage): IncomingMessage {
  return {
    topic,
    partition,
    offset: m.offset,
    key: m.key,
    value: m.value,
    headers: m.headers ?? {},
    timestamp: m.timestamp,
  };
}
