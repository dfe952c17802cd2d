import pLimit from 'p-limit';

import type {
  BatchHandler,
  IncomingMessage,
  MessageHandler,
  MessageProducer,
  OutgoingMessage,
  TopicMessages,
} from './port.js';
import { processSpan } from './tracing.js';

/**
 * What the handlers of one batch publish, kept in memory and sent in one produce request at the end
 * of the batch (publishingBatchHandler). Its send() only records: nothing is acknowledged until the
 * batch is sent, which happens before the batch's offsets are committed.
 */
export class OutgoingBatch implements MessageProducer {
  private readonly byTopic = new Map<string, OutgoingMessage[]>();
  private readonly effects: (() => void)[] = [];

  /**
   * `checkFits` refuses (MessageTooLargeError) a message its topic can never take, at once: the
   * handler that made it fails alone (the dead-letter guard takes it), not the batch's send later.
   */
  constructor(
    private readonly checkFits?: (topic: string, messages: readonly OutgoingMessage[]) => Promise<void>,
  ) {}

  async send(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    await this.checkFits?.(topic, messages);
    const list = this.byTopic.get(topic) ?? [];
    list.push(...messages);
    this.byTopic.set(topic, list);
  }

  disconnect(): Promise<void> {
    return Promise.resolve();
  }

  get topics(): TopicMessages[] {
    return [...this.byTopic].map(([topic, messages]) => ({ topic, messages }));
  }

  /** Keeps `effect` until the batch was sent (see onceAcknowledged). */
  whenSent(effect: () => void): void {
    this.effects.push(effect);
  }

  /** Runs what whenSent kept; called once the batch's produce request was acknowledged. */
  sent(): void {
    for (const effect of this.effects.splice(0)) {
      try {
        effect();
      } catch {
        // Logs and metrics only: the batch is sent, and must not come again because of them.
      }
    }
  }
}

/**
 * Runs `effect` (a log line, a metric) once what was given to `producer` is acknowledged by Kafka: at
 * once after an awaited send of a real producer, after the batch's send for an OutgoingBatch, and not
 * at all if that send fails (the batch comes again and its handlers run again).
 */
export function onceAcknowledged(producer: MessageProducer, effect: () => void): void {
  if (producer instanceof OutgoingBatch) producer.whenSent(effect);
  else effect();
}

/** What publishingBatchHandler needs of a producer (KafkaProducer). */
export interface BatchSender {
  /** Sends in requests that fit the topics' limits; a request already acknowledged is not sent again. */
  sendBatch(batches: readonly TopicMessages[]): Promise<void>;
  /** Throws MessageTooLargeError for a message the topic can never take. */
  checkFits(topic: string, messages: readonly OutgoingMessage[]): Promise<void>;
}

export interface PublishingBatchOptions {
  /** Messages handled at once; messages with the same key are always handled one after another. */
  readonly concurrency: number;
}

/**
 * Turns a per-message handler into a batch handler: the messages of the batch are handled at once
 * (up to `concurrency`, in order for each key, so one entity's messages never overtake each other),
 * each handler publishing into the batch's OutgoingBatch; then everything is sent in as few requests
 * as the topics' limits allow, acknowledged before the consumer commits. A message too large for its
 * topic fails its own handler at once (see OutgoingBatch), so the guard dead-letters that message
 * alone. A handler error, or a send that failed even after the producer sent its failed request
 * again, fails the whole batch: it comes again, and handlers must be idempotent (they are, under
 * at-least-once delivery; the results a partly acknowledged send had published come twice, and the
 * consumers ignore the copies).
 *
 * `makeHandler` is called once per batch with the batch's OutgoingBatch.
 */
export function publishingBatchHandler(
  makeHandler: (out: MessageProducer) => MessageHandler,
  producer: BatchSender,
  options: PublishingBatchOptions,
): BatchHandler {
  return async (messages) => {
    const out = new OutgoingBatch((topic, outgoing) => producer.checkFits(topic, outgoing));
    const handle = makeHandler(out);
    const limit = pLimit(options.concurrency);
    // Every handler ends before the batch does, even after a failure: none runs on when the batch
    // is delivered again.
    const settled = await Promise.allSettled(
      inKeyOrder(messages).map((sameKey) =>
        limit(async () => {
          for (const message of sameKey) await processSpan(message, () => handle(message));
        }),
      ),
    );
    const failed = settled.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    await producer.sendBatch(out.topics);
    out.sent();
  };
}

/** The messages grouped by key, each group in offset order; a message without a key is a group of its own. */
function inKeyOrder(messages: readonly IncomingMessage[]): IncomingMessage[][] {
  const groups = new Map<string, IncomingMessage[]>();
  const loose: IncomingMessage[][] = [];
  for (const message of messages) {
    if (message.key === null) {
      loose.push([message]);
      continue;
    }
    const key = message.key.toString('latin1');
    const group = groups.get(key);
    if (group) group.push(message);
    else groups.set(key, [message]);
  }
  return [...groups.values(), ...loose];
}
