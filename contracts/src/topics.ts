import type { EventType } from './generated/events.js';

/** One declarative entry per Kafka topic; infra creates exactly these (see libs/kafka ensureTopics). */
export interface TopicSpec {
  /** Versioned topic name; a breaking change of the payload means a new topic, not a new schema version. */
  readonly name: string;
  readonly partitions: number;
  readonly retentionMs: number;
  /**
   * Bytes the topic takes beyond the cluster's `message.max.bytes` (its `max.message.bytes` is set to
   * the sum when it is created). The dead-letter topic needs it: a dead letter wraps a message that
   * was as large as its own topic allowed.
   */
  readonly extraMessageBytes?: number;
  /** Event types that may appear on the topic. */
  readonly events: readonly EventType[];
  readonly description: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export const TOPICS = {
  contentChanged: {
    name: 'content.changed.v1',
    partitions: 6,
    retentionMs: 7 * DAY_MS,
    events: ['ContentChanged', 'ContentDeleted'],
    description:
      'Business systems report changed and deleted source content (key: entityType:entityId, so one entity keeps its order).',
  },
  translationRequested: {
    name: 'translation.requested.v1',
    partitions: 6,
    retentionMs: 3 * DAY_MS,
    events: ['TranslationRequested'],
    description:
      'Fields of one entity to translate into one target language (key: entityType:entityId:targetLang).',
  },
  translationRequestedRetry: {
    name: 'translation.requested.retry.v1',
    partitions: 3,
    retentionMs: 3 * DAY_MS,
    events: ['TranslationRequested'],
    description: 'Transient failures wait here with a due time so the main partition keeps flowing.',
  },
  translationCompleted: {
    name: 'translation.completed.v1',
    partitions: 6,
    retentionMs: 7 * DAY_MS,
    events: ['TranslationCompleted'],
    description:
      'Translated fields of one entity in one language, projected into content_translations (key as requested).',
  },
  deadLetter: {
    name: 'translation.dlq.v1',
    partitions: 1,
    retentionMs: 30 * DAY_MS,
    extraMessageBytes: 64 * 1024,
    events: ['DeadLetter'],
    description: 'Permanently failed messages, byte for byte, for operators to replay.',
  },
} as const satisfies Record<string, TopicSpec>;

export type TopicKey = keyof typeof TOPICS;

export const ALL_TOPICS: readonly TopicSpec[] = Object.values(TOPICS);

/** Topic name with an optional prefix, so tests (and tenants) can run isolated copies of the pipeline. */
export function topicName(key: TopicKey, prefix = ''): string {
  return `${prefix}${TOPICS[key].name}`;
}

/**
 * Kafka consumer groups of the pipeline. Tests (and tenants) prefix them like the topics, so isolated
 * copies of the pipeline never share offsets.
 */
export const CONSUMER_GROUPS = {
  /** worker: ContentChanged / ContentDeleted -> source_contents + TranslationRequested (outbox). */
  planner: 'worker.planner',
  /** worker: TranslationCompleted -> content_translations. */
  projection: 'worker.projection',
  /** worker: translation.dlq.v1 -> dead_letters index. */
  deadLetters: 'worker.dead-letters',
  /** translator: TranslationRequested -> engine chain -> TranslationCompleted. */
  engines: 'translator.engines',
  /** translator: the retry topic, read when each message is due. */
  enginesRetry: 'translator.engines.retry',
} as const;

export type ConsumerGroupKey = keyof typeof CONSUMER_GROUPS;

export function consumerGroup(key: ConsumerGroupKey, prefix = ''): string {
  return `${prefix}${CONSUMER_GROUPS[key]}`;
}
