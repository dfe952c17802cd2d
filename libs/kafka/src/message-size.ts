import type { OutgoingMessage, TopicMessages } from './port.js';

/** Bytes of a record batch (format v2) before its first record: what the broker adds to every batch. */
export const RECORD_BATCH_OVERHEAD_BYTES = 61;

/** Kafka's default `message.max.bytes` (1 MiB + 12), used only while a topic's own value is unknown. */
export const DEFAULT_MAX_MESSAGE_BYTES = 1_048_588;

/** Largest varint (a 32-bit length or count) and varlong (the timestamp delta) in a record. */
const VARINT = 5;
const VARLONG = 10;

/**
 * An upper bound of the bytes one message takes in an uncompressed record batch (format v2): its
 * length, attributes, timestamp and offset deltas, key, value and headers with their length prefixes.
 * The broker checks a partition's whole batch against the topic's `max.message.bytes`, so a batch of
 * messages fits when RECORD_BATCH_OVERHEAD_BYTES plus the sum of these fits. Counted before
 * compression: a compressed batch is never larger than this bound allows for, give or take the codec's
 * frame, so what fits uncompressed always fits.
 */
export function recordBytes(message: OutgoingMessage): number {
  let bytes = VARINT + 1 + VARLONG + VARINT;
  bytes += VARINT + (message.key === null ? 0 : Buffer.byteLength(message.key, 'utf8'));
  bytes += VARINT + message.value.length;
  bytes += VARINT;
  for (const [name, value] of Object.entries(message.headers)) {
    bytes += VARINT + Buffer.byteLength(name, 'utf8') + VARINT + Buffer.byteLength(value, 'utf8');
  }
  return bytes;
}

/** The most record bytes one batch of a topic with this `max.message.bytes` may carry. */
export const recordBudget = (maxMessageBytes: number): number =>
  maxMessageBytes - RECORD_BATCH_OVERHEAD_BYTES;

/**
 * A message larger than its topic accepts. Retrying cannot help: the caller dead-letters what caused
 * it (a poison outbox row, the request whose result this was) instead of trying again for ever.
 */
export class MessageTooLargeError extends Error {
  override readonly name = 'MessageTooLargeError';
  readonly code = 'MESSAGE_TOO_LARGE';

  constructor(
    readonly topic: string,
    readonly bytes: number,
    readonly maxMessageBytes: number,
  ) {
    super(`a message of ${bytes} bytes does not fit ${topic}, whose max.message.bytes is ${maxMessageBytes}`);
  }
}

/**
 * Cuts what is to be sent into produce requests that the broker accepts: in each request, the
 * messages of one topic add up to at most that topic's budget (so any partition's batch fits, whatever
 * the partitioner does), and only topics of the same compression codec travel together (kafkajs
 * compresses a whole request with one codec). Each topic's messages keep their order across requests,
 * so one key's messages stay in order when the requests are sent one after another.
 * Throws MessageTooLargeError for a message that fits no request.
 */
export function splitIntoRequests(
  batches: readonly TopicMessages[],
  budgetOf: (topic: string) => number,
  codecOf: (topic: string) => number = () => 0,
): TopicMessages[][] {
  const byCodec = new Map<number, TopicMessages[]>();
  for (const batch of batches) {
    if (batch.messages.length === 0) continue;
    const codec = codecOf(batch.topic);
    byCodec.set(codec, [...(byCodec.get(codec) ?? []), batch]);
  }
  const requests: TopicMessages[][] = [];
  for (const group of byCodec.values()) {
    // The n-th request of the group takes each topic's n-th slice.
    const slicesPerTopic = group.map((batch) => slices(batch, budgetOf(batch.topic)));
    const count = Math.max(...slicesPerTopic.map((s) => s.length));
    for (let n = 0; n < count; n++) {
      requests.push(slicesPerTopic.flatMap((s) => s.slice(n, n + 1)));
    }
  }
  return requests;
}

/** The record bytes of `message`; throws MessageTooLargeError when they exceed `budget` (recordBudget). */
export function fittingRecordBytes(topic: string, message: OutgoingMessage, budget: number): number {
  const bytes = recordBytes(message);
  if (bytes > budget) {
    throw new MessageTooLargeError(
      topic,
      bytes + RECORD_BATCH_OVERHEAD_BYTES,
      budget + RECORD_BATCH_OVERHEAD_BYTES,
    );
  }
  return bytes;
}

/** One topic's messages in consecutive slices of at most `budget` record bytes each. */
function slices({ topic, messages }: TopicMessages, budget: number): TopicMessages[] {
  const result: TopicMessages[] = [];
  let current: OutgoingMessage[] = [];
  let used = 0;
  for (const message of messages) {
    const bytes = fittingRecordBytes(topic, message, budget);
    if (used + bytes > budget && current.length > 0) {
      result.push({ topic, messages: current });
      current = [];
      used = 0;
    }
    current.push(message);
    used += bytes;
  }
  if (current.length > 0) result.push({ topic, messages: current });
  return result;
}
