import { topicName, type TranslationRequested } from '@tp/contracts';
import { onceAcknowledged, type IncomingMessage, type MessageHandler, type MessageProducer } from '@tp/kafka';
import { PermanentError, translationMessageKey } from '@tp/pipeline';
import type { Logger } from '@tp/runtime';
import type { EventCodec } from '@tp/schemas';

import type { TranslateText, TranslationResult } from '../translate/translate-text.js';
import type { ConsumeRequestsMetrics } from './consume-requests.metrics.js';
import { retryDelayMs, type BackoffSettings } from './retry-backoff.js';
import { attemptOf } from './retry-headers.js';
import { retryMessage } from './retry-message.js';
import { failureReasons, requestRejection } from './translation-failure.js';
import { translationCompletedMessage } from './translation-completed.message.js';

export interface HandleRequestDeps {
  readonly translateText: Pick<TranslateText, 'execute'>;
  readonly producer: MessageProducer;
  readonly codec: EventCodec;
  readonly topicPrefix: string;
  /** Tries of a request (the first included) before it is dead-lettered. */
  readonly maxAttempts: number;
  readonly backoff: BackoffSettings;
  readonly logger: Logger;
  readonly metrics?: ConsumeRequestsMetrics;
  /** Fires when the consumers stop: a translation in flight is abandoned, to be delivered again. */
  readonly stopping: AbortSignal;
  readonly now?: () => number;
}

/**
 * One TranslationRequested (from the main or the retry topic): translate it through the use case
 * (hot cache, then the chain) and publish the TranslationCompleted, awaited, so the request's offset
 * moves on only once the result is acknowledged. When every engine failed, the request goes to the
 * retry topic with its next attempt and due time, and the partition moves on; at the last attempt it
 * fails for good (TRANSLATION_FAILED). A request that can never succeed (unknown language, text too
 * long, not a TranslationRequested) fails for good at once. Wrap in guardWithDeadLetters.
 */
export function handleTranslationRequest(deps: HandleRequestDeps): MessageHandler {
  const completedTopic = topicName('translationCompleted', deps.topicPrefix);
  const retryTopic = topicName('translationRequestedRetry', deps.topicPrefix);
  const now = deps.now ?? Date.now;

  const retryLater = async (
    message: IncomingMessage,
    request: TranslationRequested,
    key: string,
    attempt: number,
    err: unknown,
  ): Promise<void> => {
    const reasons = failureReasons(err);
    if (attempt >= deps.maxAttempts) {
      throw new PermanentError('TRANSLATION_FAILED', reasons, attempt);
    }
    const delayMs = retryDelayMs(attempt, deps.backoff);
    await deps.producer.send(retryTopic, [retryMessage(message, key, attempt + 1, now() + delayMs)]);
    // Counted and logged once the retry is really sent (after the batch's send, for a batch).
    onceAcknowledged(deps.producer, () => {
      deps.metrics?.retried.inc({ attempt: String(attempt) });
      deps.logger.warn(
        { key, attempt, next_attempt_in_ms: delayMs, correlation_id: request.correlationId, reasons },
        'translation failed; the request will be tried again',
      );
    });
  };

  return async (message) => {
    const attempt = attemptOf(message.headers);
    const request = decodeRequest(deps.codec, message);
    const key = message.key?.toString('utf8') ?? translationMessageKey(request.data);
    const { data } = request;
    let result: TranslationResult;
    try {
      result = await deps.translateText.execute(
        { text: data.text, source: data.sourceLang, target: data.targetLang },
        {
          correlationId: request.correlationId,
          causationId: request.eventId,
          signal: deps.stopping,
          recordResult: false,
        },
      );
    } catch (err) {
      // Stopping: not handled, so not committed; it comes again after the restart.
      if (deps.stopping.aborted) throw err;
      const rejection = requestRejection(err, attempt);
      if (rejection) throw rejection;
      await retryLater(message, request, key, attempt, err);
      return;
    }
    await deps.producer.send(completedTopic, [translationCompletedMessage(deps.codec, request, result, key)]);
    onceAcknowledged(deps.producer, () =>
      deps.metrics?.completed.inc({ engine: result.engine, cached: String(result.cached) }),
    );
  };
}

/** The request in the message; a SchemaError (undecodable) or another event type is permanent. */
function decodeRequest(codec: EventCodec, message: IncomingMessage): TranslationRequested {
  const event = codec.decode(message.value, message.headers);
  if (event.eventType !== 'TranslationRequested') {
    throw new PermanentError(
      'UNEXPECTED_EVENT',
      `expected TranslationRequested on ${message.topic}, got ${event.eventType}`,
    );
  }
  return event;
}
