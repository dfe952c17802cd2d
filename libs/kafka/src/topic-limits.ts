import kafkajs, { type Kafka } from 'kafkajs';

import { DEFAULT_MAX_MESSAGE_BYTES } from './message-size.js';

/** After a failed read, how long the value in hand is used before the cluster is asked again. */
const RETRY_READ_MS = 10_000;

export interface TopicLimitsOptions {
  /** How long a topic's value is trusted before it is read again. Default one minute. */
  readonly ttlMs?: number;
  readonly now?: () => number;
}

/**
 * Each topic's `max.message.bytes` as the cluster answers it (describeConfigs gives the effective
 * value: the topic's own, or the broker's `message.max.bytes`), read when first needed and again after
 * `ttlMs`, so a changed limit applies without a restart. When the cluster cannot be asked, the last
 * value read is used, or Kafka's default for a topic never read.
 */
export class TopicLimits {
  private readonly known = new Map<string, { readonly bytes: number; readonly at: number }>();
  private readonly reading = new Map<string, Promise<number>>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly kafka: Kafka,
    options: TopicLimitsOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  /** The topic's `max.message.bytes`. */
  async maxMessageBytes(topic: string): Promise<number> {
    const known = this.known.get(topic);
    if (known && this.now() - known.at < this.ttlMs) return known.bytes;
    let reading = this.reading.get(topic);
    if (!reading) {
      reading = this.read(topic).finally(() => this.reading.delete(topic));
      this.reading.set(topic, reading);
    }
    try {
      return await reading;
    } catch {
      // Asked again in a little while, not at every send: the cluster may be down, or may refuse
      // DescribeConfigs to this client (ACLs) while it takes produce requests. Until a value is
      // read, Kafka's default stands in; a broker that refuses a batch as too large makes it read
      // again (forget).
      const bytes = known?.bytes ?? DEFAULT_MAX_MESSAGE_BYTES;
      this.known.set(topic, { bytes, at: this.now() - this.ttlMs + RETRY_READ_MS });
      return bytes;
    }
  }

  /** Reads the topic again on its next use (after the broker refused a message as too large). */
  forget(topic: string): void {
    this.known.delete(topic);
  }

  private async read(topic: string): Promise<number> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const { resources } = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [
          { type: kafkajs.ConfigResourceTypes.TOPIC, name: topic, configNames: ['max.message.bytes'] },
        ],
      });
      const value = Number(
        resources[0]?.configEntries.find((e) => e.configName === 'max.message.bytes')?.configValue,
      );
      if (!Number.isSafeInteger(value) || value <= 0) {
        throw new Error(`the cluster gave no max.message.bytes for ${topic}`);
      }
      this.known.set(topic, { bytes: value, at: this.now() });
      return value;
    } finally {
      await admin.disconnect();
    }
  }
}
