import { setTimeout as sleep } from 'node:timers/promises';

import { consumerGroup, topicName } from '@tp/contracts';
import {
  consumerLagGauge,
  consumersCheck,
  consumersGauge,
  KafkaConsumer,
  KafkaProducer,
  publishingBatchHandler,
  type MessageConsumer,
  type MessageProducer,
} from '@tp/kafka';
import { deadLetterCounter, guardWithDeadLetters } from '@tp/pipeline';
import type { BackgroundTask } from '@tp/platform';
import type { Logger } from '@tp/runtime';
import { EventCodec } from '@tp/schemas';
import type { Kafka } from 'kafkajs';
import type { Registry } from 'prom-client';

import type { TranslatorConfig } from '../config.js';
import type { TranslateText } from '../translate/translate-text.js';
import { consumeRequestsMetrics } from './consume-requests.metrics.js';
import { DueTimeConsumer } from './due-time-consumer.js';
import { handleTranslationRequest } from './handle-request.js';

export type EngineConsumersSettings = Pick<
  TranslatorConfig,
  | 'KAFKA_TOPIC_PREFIX'
  | 'TRANSLATION_MAX_ATTEMPTS'
  | 'TRANSLATION_RETRY_BACKOFF_MS'
  | 'TRANSLATION_RETRY_MAX_BACKOFF_MS'
  | 'TRANSLATION_CONSUMER_CONCURRENCY'
  | 'MAX_TEXT_CHARS'
>;

export interface EngineConsumersOptions {
  readonly kafka: Kafka;
  readonly translateText: Pick<TranslateText, 'executeBatch'>;
  readonly settings: EngineConsumersSettings;
  readonly logger: Logger;
  readonly metrics?: Registry;
  /** How often to look again for missing topics. */
  readonly topicsPollMs?: number;
}

/**
 * The translator's engine consumers, as one background task: `translator.engines` on the request
 * topic and `translator.engines.retry` on the retry topic, both running the same handler behind the
 * dead-letter guard, and one idempotent producer for results, retries and dead letters.
 *
 * If the topics do not exist yet (`npm run topics` not run), the service still starts and answers
 * POST /translate; the consumers start once the topics appear, and the wait is logged as an error.
 */
export class EngineConsumers implements BackgroundTask {
  private readonly producer: KafkaProducer;
  private readonly codec = new EventCodec();
  private readonly stopping = new AbortController();
  private readonly consumers: MessageConsumer[] = [];
  private readonly topics: readonly string[];
  private missing: readonly string[] = [];
  private waiting: Promise<void> | undefined;
  private readonly consuming = consumersCheck('engine-consumers', false, () => this.consumers);

  constructor(private readonly options: EngineConsumersOptions) {
    this.producer = new KafkaProducer(options.kafka);
    const prefix = options.settings.KAFKA_TOPIC_PREFIX;
    if (options.metrics) {
      // Declared now, not once the topics exist: /metrics lists them (at 0) from the start.
      consumeRequestsMetrics(options.metrics);
      consumersGauge(options.metrics, () => this.consumers);
      // The retry topic's lag is how many requests wait for an engine to come back.
      consumerLagGauge(options.metrics, options.kafka, [
        { group: consumerGroup('engines', prefix), topic: topicName('translationRequested', prefix) },
        {
          group: consumerGroup('enginesRetry', prefix),
          topic: topicName('translationRequestedRetry', prefix),
        },
      ]);
    }
    this.topics = [
      topicName('translationRequested', prefix),
      topicName('translationRequestedRetry', prefix),
      topicName('translationCompleted', prefix),
      topicName('deadLetter', prefix),
    ];
  }

  async start(): Promise<void> {
    await this.producer.connect();
    this.missing = await this.missingTopics();
    if (this.missing.length === 0) return this.startConsumers();
    this.options.logger.error(
      { topics: this.missing },
      'Kafka topics missing (create them with `npm run topics`); the engine consumers start once they exist',
    );
    this.waiting = this.startOnceTopicsExist();
  }

  /**
   * For the translator's /ready: resolves while both consumers are consuming; otherwise says why not
   * (topics missing, joining, restarting or crashed).
   */
  async check(): Promise<void> {
    if (this.missing.length > 0) {
      throw new Error(`waiting for the topics ${this.missing.join(', ')} (create them with npm run topics)`);
    }
    await this.consuming.check();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.waiting;
    await Promise.all(this.consumers.map((consumer) => consumer.stop()));
    await this.producer.disconnect();
  }

  private async startConsumers(): Promise<void> {
    const { settings, logger, metrics, kafka } = this.options;
    const prefix = settings.KAFKA_TOPIC_PREFIX;
    const handlerPublishingTo = (group: string, producer: MessageProducer) =>
      handleTranslationRequest({
        translateText: this.options.translateText,
        producer,
        codec: this.codec,
        topicPrefix: prefix,
        consumerGroup: group,
        maxTextChars: settings.MAX_TEXT_CHARS,
        maxAttempts: settings.TRANSLATION_MAX_ATTEMPTS,
        backoff: {
          baseMs: settings.TRANSLATION_RETRY_BACKOFF_MS,
          maxMs: settings.TRANSLATION_RETRY_MAX_BACKOFF_MS,
        },
        logger,
        ...(metrics
          ? { metrics: consumeRequestsMetrics(metrics), deadLetters: deadLetterCounter(metrics) }
          : {}),
        stopping: this.stopping.signal,
      });
    const guarded = (group: string, producer: MessageProducer) =>
      guardWithDeadLetters(handlerPublishingTo(group, producer), {
        producer,
        codec: this.codec,
        consumerGroup: group,
        logger,
        topicPrefix: prefix,
        ...(metrics ? { metrics } : {}),
      });
    const concurrency = settings.TRANSLATION_CONSUMER_CONCURRENCY;

    // The request topic in batches: translated `concurrency` at once, results, retries and dead
    // letters of a batch sent in one request before its offsets are committed.
    const mainGroup = consumerGroup('engines', prefix);
    const main = new KafkaConsumer(kafka, {
      groupId: mainGroup,
      topics: [topicName('translationRequested', prefix)],
      logger,
      // Another partition's batch is translated while one's results are sent and committed.
      partitionsConsumedConcurrently: 3,
    });
    const handleBatch = publishingBatchHandler((out) => guarded(mainGroup, out), this.producer, {
      concurrency,
    });
    // The retry topic one message at a time: each waits for its due time first.
    const retryGroup = consumerGroup('enginesRetry', prefix);
    const retry = new DueTimeConsumer(kafka, {
      groupId: retryGroup,
      topic: topicName('translationRequestedRetry', prefix),
      logger,
      partitionsConsumedConcurrently: concurrency,
    });
    // Listed before they start, so stop() also stops one that is still joining.
    this.consumers.push(main, retry);
    try {
      await Promise.all([main.startBatches(handleBatch), retry.start(guarded(retryGroup, this.producer))]);
    } catch (err) {
      this.consumers.length = 0;
      await Promise.all([main.stop(), retry.stop()].map((stopped) => stopped.catch(() => undefined)));
      throw err;
    }
    logger.info({ groups: [mainGroup, retryGroup] }, 'engine consumers started');
  }

  private async startOnceTopicsExist(): Promise<void> {
    const pollMs = this.options.topicsPollMs ?? 5000;
    while (!this.stopping.signal.aborted) {
      try {
        await sleep(pollMs, undefined, { signal: this.stopping.signal });
      } catch {
        return;
      }
      try {
        this.missing = await this.missingTopics();
        if (this.missing.length > 0) continue;
        await this.startConsumers();
        return;
      } catch (err) {
        this.options.logger.error({ err }, 'engine consumers could not start; trying again');
      }
    }
  }

  private async missingTopics(): Promise<string[]> {
    const admin = this.options.kafka.admin();
    await admin.connect();
    try {
      const existing = new Set(await admin.listTopics());
      return this.topics.filter((topic) => !existing.has(topic));
    } finally {
      await admin.disconnect();
    }
  }
}
