import type { Kafka, Producer } from 'kafkajs';

import type { MessageProducer, OutgoingMessage, TopicMessages } from './port.js';

/**
 * Idempotent producer (acks from all in-sync replicas, broker-side de-duplication of retries). One
 * request in flight keeps the per-partition order across retries.
 */
export class KafkaProducer implements MessageProducer {
  private readonly producer: Producer;
  private connected: Promise<void> | undefined;

  constructor(kafka: Kafka) {
    this.producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
    });
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
    await this.producer.sendBatch({ acks: -1, topicMessages });
  }

  async disconnect(): Promise<void> {
    if (!this.connected) return;
    this.connected = undefined;
    await this.producer.disconnect();
  }
}

const toKafkaMessage = (m: OutgoingMessage) => ({ key: m.key, value: m.value, headers: { ...m.headers } });
