import type { HealthReporting } from './consumer-health.js';

/**
 * The small interface the services use for Kafka. kafkajs sits behind it (kafka-producer.ts,
 * kafka-consumer.ts) so the client can be swapped without touching services.
 */
export interface OutgoingMessage {
  /** Partition key; messages with the same key keep their order. */
  readonly key: string | null;
  readonly value: Buffer;
  readonly headers: Readonly<Record<string, string>>;
}

export interface IncomingMessage {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: Readonly<Record<string, Buffer | string | (Buffer | string)[] | undefined>>;
  readonly timestamp: string;
}

export interface TopicMessages {
  readonly topic: string;
  readonly messages: readonly OutgoingMessage[];
}

export interface MessageProducer {
  /** Resolves once every message is acknowledged by all in-sync replicas. */
  send(topic: string, messages: readonly OutgoingMessage[]): Promise<void>;
  disconnect(): Promise<void>;
}

/** Throwing means "not handled": the offset is not committed and the message is delivered again. */
export type MessageHandler = (message: IncomingMessage) => Promise<void>;

/**
 * Handles consecutive messages of one partition, oldest first. Throwing means none of them counts as
 * handled: their offsets are not committed and they are all delivered again.
 */
export type BatchHandler = (messages: readonly IncomingMessage[]) => Promise<void>;

export interface MessageConsumer extends HealthReporting {
  /** Joins the group and handles messages until stop(); resolves once consuming has started. */
  start(handler: MessageHandler): Promise<void>;
  /** Finishes the message in hand, commits what was handled, leaves the group. */
  stop(): Promise<void>;
}
