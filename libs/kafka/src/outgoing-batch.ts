import pLimit from 'p-limit';

import type {
  BatchHandler,
  IncomingMessage,
  MessageHandler,
  MessageProducer,
  OutgoingMessage,
  TopicMessages,
} from './port.js';

/**
 * What the handlers of one batch publish, kept in memory and sent in one produce request at the end
 * of the batch (publishingBatchHandler). Its send() only records: nothing is acknowledged until the
 * batch is sent, which happens before the batch's offsets are committed.
 */
export class OutgoingBatch implements MessageProducer {
  private readonly byTopic = new Map<string, OutgoingMessage[]>();
  private readonly effects: (() => void)[] = [];

  send(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    const list = this.byTopic.get(topic) ?? [];
    list.push(...messages);
    this.byTopic.set(topic, list);
    return Promise.resolve();
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

export interface PublishingBatchOptions {
  /** Messages handled at once; messages with the same key are always handled one after another. */
  readonly concurrency: number;
}

/**
 * Turns a per-message handler into a batch handler: the messages of the batch are handled at once
 * (up to `concurrency`, in order for each key, so one entity's messages never overtake each other),
 * each handler publishing into the batch's OutgoingBatch; then everything is sent in one request,
 * acknowledged before the consumer commits. A handler error, or a failed send, fails the whole batch:
 * it comes again, and handlers must be idempotent (they are, under at-least-once delivery).
 *
 * `makeHandler` is called once per batch with the batch's OutgoingBatch.
 */
export function publishingBatchHandler(
  makeHandler: (out: MessageProducer) => MessageHandler,
  producer: { sendBatch(batches: readonly TopicMessages[]): Promise<void> },
  options: PublishingBatchOptions,
): BatchHandler {
  return async (messages) => {
    const out = new OutgoingBatch();
    const handle = makeHandler(out);
    const limit = pLimit(options.concurrency);
    // Every handler ends before the batch does, even after a failure: none runs on when the batch
    // is delivered again.
    const settled = await Promise.allSettled(
      inKeyOrder(messages).map((sameKey) =>
        limit(async () => {
          for (const message of sameKey) await handle(message);
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
