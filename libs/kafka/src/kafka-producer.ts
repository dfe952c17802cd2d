import { setTimeout as sleep } from 'node:timers/promises';

import { Partitioners, type Kafka, type Message, type Producer, type RecordMetadata } from 'kafkajs';

import { producerDefaultsOf, type ProducerDefaults } from './kafka-client.js';
import { MessageTooLargeError, fittingRecordBytes, recordBudget, splitIntoRequests } from './message-size.js';
import type { MessageProducer, OutgoingMessage, TopicMessages } from './port.js';
import { countRequests } from './request-count.js';
import { endSendSpans, withSendSpans } from './tracing.js';

/**
 * Idempotent producer (acks from all in-sync replicas, broker-side de-duplication of retries). One
 * request in flight keeps the per-partition order across retries.
 *
 * A failed send replaces the kafkajs producer: the next send connects with a new producer id and
 * fresh sequence numbers. kafkajs rolls back the sequence numbers of every partition of a failed
 * request, even of partitions the broker had appended (a request split by a broker shutdown), so the
 * old producer's next send would be refused as OUT_OF_ORDER_SEQUENCE_NUMBER for ever (found by
 * test/e2e/broker-restart.e2e.test.ts). Callers send a failed batch again; consumers are idempotent.
 *
 * A send kafkajs reports as done is checked against its answer: every partition a message went to
 * must have been acknowledged. kafkajs 2.2 retries a request that failed at one broker (killed) by
 * sending again only to the brokers without an answer yet; a partition whose new leader is a broker
 * that had already answered is then never sent, and the send resolves anyway (found by
 * test/e2e/three-brokers.e2e.test.ts: requests marked published in the outbox that never reached the
 * topic). Such a send fails here (UnacknowledgedPartitionsError) and the whole request is sent again.
 */
export class KafkaProducer implements MessageProducer {
  private producer: Producer;
  /** The partition kafkajs's partitioner last chose for each message being sent (see acknowledgedAll). */
  private readonly partitionOf = new WeakMap<Message, number>();
  private connected: Promise<void> | undefined;
  private readonly defaults: ProducerDefaults;
  private readonly resendAttempts: number;
  private readonly resendPauseMs: number;

  constructor(
    private readonly kafka: Kafka,
    options: KafkaProducerOptions = {},
  ) {
    this.producer = this.create();
    this.defaults = producerDefaultsOf(kafka);
    this.resendAttempts = options.resendAttempts ?? 2;
    this.resendPauseMs = options.resendPauseMs ?? 500;
  }

  /** Connects once; a failed attempt is forgotten so the next send tries again. */
  connect(): Promise<void> {
    this.connected ??= this.producer.connect().catch((err: unknown) => {
      this.connected = undefined;
      throw err;
    });
    return this.connected;
  }

  async send(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    await this.sendBatch([{ topic, messages }]);
  }

  /** Throws MessageTooLargeError when one of the messages can never be sent to `topic`. */
  async checkFits(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    const budget = recordBudget(await this.defaults.limits.maxMessageBytes(topic));
    for (const message of messages) fittingRecordBytes(topic, message, budget);
  }

  /**
   * Messages for several topics; resolves once all are acknowledged. They go in as few produce
   * requests as the topics' `max.message.bytes` allow (splitIntoRequests), one after another, so a
   * key's messages keep their order. A request that fails is sent again (up to `resendAttempts`
   * times) before the error is thrown, and the requests already acknowledged are not sent again:
   * `acknowledged` hears of each, so a caller whose send failed knows which messages did go out.
   */
  async sendBatch(
    batches: readonly TopicMessages[],
    acknowledged?: (request: readonly TopicMessages[]) => void,
  ): Promise<void> {
    const requests = await this.plan(batches);
    if (requests.length === 0) return;
    for (const request of requests) {
      await this.sendRequest(request);
      acknowledged?.(request);
    }
  }

  /** The produce requests `batches` go out in; throws MessageTooLargeError as splitIntoRequests does. */
  async plan(batches: readonly TopicMessages[]): Promise<TopicMessages[][]> {
    const topics = [...new Set(batches.filter((b) => b.messages.length > 0).map((b) => b.topic))];
    const limits = new Map<string, number>();
    for (const topic of topics) limits.set(topic, await this.defaults.limits.maxMessageBytes(topic));
    return splitIntoRequests(
      batches,
      (topic) => recordBudget(limits.get(topic) ?? 0),
      this.defaults.compression,
    );
  }

  async disconnect(): Promise<void> {
    if (!this.connected) return;
    this.connected = undefined;
    await this.producer.disconnect();
  }

  /** Sends one produce request, each traced message in a `send` span (tracing.ts) until it is answered. */
  private async sendRequest(request: readonly TopicMessages[]): Promise<void> {
    const traced = withSendSpans(request);
    try {
      await this.sendTraced(traced.request);
      endSendSpans(traced.spans);
    } catch (err) {
      endSendSpans(traced.spans, err);
      throw err;
    }
  }

  private async sendTraced(request: readonly TopicMessages[]): Promise<void> {
    const topicMessages = request.map(({ topic, messages }) => ({
      topic,
      messages: messages.map(toKafkaMessage),
    }));
    const compression = this.defaults.compression(request[0]?.topic ?? '');
    for (let attempt = 0; ; attempt++) {
      await this.connect();
      const producer = this.producer;
      try {
        const answer = await producer.sendBatch({ acks: -1, topicMessages, compression });
        this.checkAcknowledged(topicMessages, answer);
        return;
      } catch (err) {
        if (producer === this.producer) this.replace();
        if (isRecordRefusal(err)) {
          // The limit may have changed since it was read: read it again before the next plan.
          for (const { topic } of request) this.defaults.limits.forget(topic);
          throw err;
        }
        if (attempt >= this.resendAttempts) throw err;
        await sleep(this.resendPauseMs * 2 ** attempt);
      }
    }
  }

  private create(): Producer {
    const producer = this.kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      // kafkajs's own partitioner, noting where each message goes. Its retries ask again: a message
      // keeps its first partition, so one without a key (placed round-robin) does not move to a
      // partition already acknowledged, where the check could not tell it was never sent.
      createPartitioner: () => {
        const choose = Partitioners.DefaultPartitioner();
        return (args) => {
          const earlier = this.partitionOf.get(args.message);
          const partition =
            earlier !== undefined && earlier < args.partitionMetadata.length ? earlier : choose(args);
          this.partitionOf.set(args.message, partition);
          return partition;
        };
      },
    });
    countRequests(producer, 'producer');
    return producer;
  }

  /** Throws UnacknowledgedPartitionsError when a partition a message went to is not in the answer. */
  private checkAcknowledged(
    topicMessages: readonly { topic: string; messages: readonly Message[] }[],
    answer: readonly RecordMetadata[],
  ): void {
    const acknowledged = new Set(answer.map((r) => `${r.topicName}/${r.partition}`));
    const missing = new Set<string>();
    for (const { topic, messages } of topicMessages) {
      for (const message of messages) {
        const partition = this.partitionOf.get(message);
        if (partition !== undefined && !acknowledged.has(`${topic}/${partition}`)) {
          missing.add(`${topic}/${partition}`);
        }
      }
    }
    if (missing.size > 0) throw new UnacknowledgedPartitionsError([...missing]);
  }

  /** A new kafkajs producer (new producer id) for the next send; the old one is closed in the background. */
  private replace(): void {
    const old = this.producer;
    this.producer = this.create();
    this.connected = undefined;
    void old.disconnect().catch(() => undefined);
  }
}

/** kafkajs resolved a send without an answer from some of the partitions it sent to. */
export class UnacknowledgedPartitionsError extends Error {
  override readonly name = 'UnacknowledgedPartitionsError';

  constructor(readonly partitions: readonly string[]) {
    super(`the send resolved without an acknowledgement from ${partitions.join(', ')}`);
  }
}

export interface KafkaProducerOptions {
  /** Times a failed produce request is sent again before the send fails. Default 2. */
  readonly resendAttempts?: number;
  /** Pause before the first resend; doubles with each. Default 500 ms. */
  readonly resendPauseMs?: number;
}

/**
 * Kafka's answers that refuse the records themselves (too large, invalid, corrupt): sending the same
 * records again gets the same answer, whatever the state of the cluster.
 */
const RECORD_REFUSALS = new Set([
  'MESSAGE_TOO_LARGE',
  'RECORD_LIST_TOO_LARGE',
  'INVALID_RECORD',
  'CORRUPT_MESSAGE',
]);

/** Whether a send failed because of its records, not because of the cluster. */
export function isRecordRefusal(err: unknown): boolean {
  let e: unknown = err;
  // kafkajs wraps the broker's answer in `cause` (e.g. KafkaJSNumberOfRetriesExceeded); a few levels do.
  for (let depth = 0; depth < 5 && e instanceof Error; depth++, e = e.cause) {
    if (e instanceof MessageTooLargeError || RECORD_REFUSALS.has((e as { type?: string }).type ?? '')) {
      return true;
    }
  }
  return false;
}

const toKafkaMessage = (m: OutgoingMessage): Message => ({
  key: m.key,
  value: m.value,
  headers: { ...m.headers },
});
