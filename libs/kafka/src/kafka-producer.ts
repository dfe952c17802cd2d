import type { Kafka, Producer } from 'kafkajs';

import type { MessageProducer, OutgoingMessage } from './port.js';

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
    if (messages.length === 0) return;
    await this.connect();
    await this.producer.send({
      topic,
      acks: -1,
      messages: messages.map((m) => ({ key: m.key, value: m.value, headers: { ...m.headers } })),
    });
  }

  async disconnect(): Promise<void> {
    if (!this.connected) return;
    this.connected = undefined;
    await this.producer.disconnect();
  }
}
