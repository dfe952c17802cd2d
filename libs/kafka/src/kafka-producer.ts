import type { Kafka, Producer } from 'kafkajs';

import type { MessageProducer, OutgoingMessage, TopicMessages } from './port.js';

/**
 * Idempotent producer (acks from all in-sync replicas, broker-side de-duplication of retries). One
 * request in flight keeps the per-partition order across retries.
 *
 * A failed send replaces the kafkajs producer: the next send connects with a new producer id and
 * fresh sequence numbers. kafkajs rolls back the sequence numbers of every partition of a failed
 * request, even of partitions the broker had appended (a request split by a broker shutdown), so the
 * old producer's next send would be refused as OUT_OF_ORDER_SEQUENCE_NUMBER for ever (found by
 * test/e2e/broker-restart.e2e.test.ts). Callers send a failed batch again; consumers are idempotent.
 */
export class KafkaProducer implements MessageProducer {
  private producer: Producer;
  private connected: Promise<void> | undefined;

  constructor(private readonly kafka: Kafka) {
    this.producer = this.create();
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

  /** Messages for several topics in one produce request; resolves once all are acknowledged. */
  async sendBatch(batches: readonly TopicMessages[]): Promise<void> {
    const topicMessages = batches
      .filter((b) => b.messages.length > 0)
      .map(({ topic, messages }) => ({ topic, messages: messages.map(toKafkaMessage) }));
    if (topicMessages.length === 0) return;
    await this.connect();
    const producer = this.producer;
    try {
      await producer.sendBatch({ acks: -1, topicMessages });
    } catch (err) {
      if (producer === this.producer) this.replace();
      throw err;
    }
  }

  async disconnect(): Promise<void> {
    if (!this.connected) return;
    this.connected = undefined;
    await this.producer.disconnect();
  }

  private create(): Producer {
    return this.kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
    });
  }

  /** A new kafkajs producer (new producer id) for the next send; the old one is closed in the background. */
  private replace(): void {
    const old = this.producer;
    this.producer = this.create();
    this.connected = undefined;
    void old.disconnect().catch(() => undefined);
  }
}

const toKafkaMessage = (m: OutgoingMessage) => ({ key: m.key, value: m.value, headers: { ...m.headers } });
