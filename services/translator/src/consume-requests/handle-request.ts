import { topicName, type TranslationRequested } from '@tp/contracts';
import { onceAcknowledged, type IncomingMessage, type MessageHandler, type MessageProducer } from '@tp/kafka';
import {
  DEAD_LETTER_PART_HEADER,
  PermanentError,
  requestedFields,
  sendToDeadLetters,
  translationMessageKey,
  type FieldFailure,
  type FieldRequest,
} from '@tp/pipeline';
import { AppError, type Logger } from '@tp/runtime';
import type { EventCodec } from '@tp/schemas';
import type { Counter } from 'prom-client';
import { TEXT_FORMATS, type TextFormat } from '@tp/translation';

import type { BatchItem, TranslateText, TranslationResult } from '../translate/translate-text.js';
import type { ConsumeRequestsMetrics } from './consume-requests.metrics.js';
import { fieldMessage, translationCompletedMessage } from './translation-completed.message.js';
import { retryDelayMs, type BackoffSettings } from './retry-backoff.js';
import { attemptOf } from './retry-headers.js';
import { retryMessage } from './retry-message.js';
import { failureReasons, requestRejection } from './translation-failure.js';

export interface HandleRequestDeps {
  readonly translateText: Pick<TranslateText, 'executeBatch'>;
  readonly producer: MessageProducer;
  readonly codec: EventCodec;
  readonly topicPrefix: string;
  /** The consumer group, named in the dead letters of single fields. */
  readonly consumerGroup: string;
  /** Tries of a request (the first included) before it is dead-lettered. */
  readonly maxAttempts: number;
  readonly backoff: BackoffSettings;
  /** Most characters one engine batch takes (the use case's limit, all texts together). */
  readonly maxTextChars: number;
  readonly logger: Logger;
  readonly metrics?: ConsumeRequestsMetrics;
  /** pipeline_dead_letters_total, for the fields dead-lettered alone. */
  readonly deadLetters?: Counter<'group' | 'code'>;
  /** Fires when the consumers stop: a translation in flight is abandoned, to be delivered again. */
  readonly stopping: AbortSignal;
  readonly now?: () => number;
}

/** What became of one field of a request. */
type FieldOutcome =
  | { readonly field: FieldRequest; readonly result: TranslationResult }
  | { readonly field: FieldRequest; readonly error: unknown };

/**
 * One TranslationRequested (from the main or the retry topic) with its fields of one entity in one
 * language: translated through the use case together (hot cache, then one engine batch), published
 * as one TranslationCompleted with each field's result, awaited, so the request's offset moves on
 * only once the result is acknowledged. A field that failed fails alone: when every engine failed, it
 * goes to the retry topic (with the other such fields of the request, as a request of their own) with
 * its next attempt and due time; at the last attempt, or when it can never succeed (text too long,
 * markup too complex, an unknown format), it is dead-lettered alone, as a request of that one field
 * (so a replay translates it). A request that can never succeed as a whole (unknown language, not a
 * TranslationRequested) fails for good at once. Wrap in guardWithDeadLetters.
 */
export function handleTranslationRequest(deps: HandleRequestDeps): MessageHandler {
  const completedTopic = topicName('translationCompleted', deps.topicPrefix);
  return async (message) => {
    const attempt = attemptOf(message.headers);
    const request = decodeRequest(deps.codec, message);
    const key = message.key?.toString('utf8') ?? translationMessageKey(request.data);
    const outcomes = await translateFields(deps, request).catch((err: unknown): FieldOutcome[] => {
      // Stopping: not handled, so not committed; it comes again after the restart.
      if (deps.stopping.aborted) throw err;
      // The request as a whole fails each field: for good when no engine knows the language (each
      // field its own dead letter, as a report's tracking counts them), else retried (sortOutcomes).
      return requestedFields(request.data).map((field) => ({ field, error: err }));
    });
    const sorted = sortOutcomes(outcomes, attempt, deps.maxAttempts);
    const { translated } = sorted;
    if (translated.length > 0) {
      await deps.producer.send(completedTopic, [
        translationCompletedMessage(deps.codec, request, translated, sorted.failures, key),
      ]);
      onceAcknowledged(deps.producer, () => {
        for (const { result } of translated) {
          deps.metrics?.completed.inc({ engine: result.engine, cached: String(result.cached) });
        }
      });
    }
    const failed = { message, request, key, attempt };
    if (sorted.retrying.length > 0) await retryLater(deps, failed, sorted.retrying, sorted.reasons);
    for (const { field, failure } of sorted.failed) await deadLetter(deps, failed, field, failure);
  };
}

/** The fields of a request by what becomes of them. */
interface SortedOutcomes {
  readonly translated: { field: FieldRequest; result: TranslationResult }[];
  /** Failed, worth another attempt. */
  readonly retrying: FieldRequest[];
  /** Failed for good. */
  readonly failed: { field: FieldRequest; failure: PermanentError }[];
  /** What the TranslationCompleted says of the fields that failed. */
  readonly failures: FieldFailure[];
  /** Why each retried field failed, for the log. */
  readonly reasons: string[];
}

/**
 * A field that failed is permanent when no retry can help (a PermanentError, a 4xx of the use case)
 * or at the last attempt (TRANSLATION_FAILED); otherwise it is retried.
 */
function sortOutcomes(
  outcomes: readonly FieldOutcome[],
  attempt: number,
  maxAttempts: number,
): SortedOutcomes {
  const sorted: SortedOutcomes = { translated: [], retrying: [], failed: [], failures: [], reasons: [] };
  for (const outcome of outcomes) {
    const { field } = outcome;
    if ('result' in outcome) {
      sorted.translated.push({ field, result: outcome.result });
      continue;
    }
    const { error } = outcome;
    const permanent =
      (error instanceof PermanentError ? error : requestRejection(error, attempt)) ??
      (attempt >= maxAttempts
        ? new PermanentError('TRANSLATION_FAILED', failureReasons(error), attempt)
        : undefined);
    const reason = permanent?.message ?? failureReasons(error);
    const code = permanent?.code ?? (error instanceof AppError ? error.code : 'TRANSLATION_FAILED');
    const { sourceHash, sourceVersion } = field;
    sorted.failures.push({
      field: field.field,
      sourceHash,
      sourceVersion,
      code,
      reason: reason.slice(0, 2000),
      retrying: !permanent,
    });
    if (permanent) sorted.failed.push({ field, failure: permanent });
    else {
      sorted.retrying.push(field);
      sorted.reasons.push(`${field.field}: ${reason}`);
    }
  }
  return sorted;
}

/** The request a field failed in, with the message that carried it. */
interface FailedRequest {
  readonly message: IncomingMessage;
  readonly request: TranslationRequested;
  readonly key: string;
  readonly attempt: number;
}

/** The request's failed fields again on the retry topic, as one request (its bytes when all failed). */
async function retryLater(
  deps: HandleRequestDeps,
  { message, request, key, attempt }: FailedRequest,
  fields: readonly FieldRequest[],
  reasons: readonly string[],
): Promise<void> {
  const now = deps.now ?? Date.now;
  const delayMs = retryDelayMs(attempt, deps.backoff);
  const all = fields.length === requestedFields(request.data).length;
  const retried = all ? message : fieldMessage(deps.codec, message, request, fields);
  await deps.producer.send(topicName('translationRequestedRetry', deps.topicPrefix), [
    retryMessage(retried, key, attempt + 1, now() + delayMs),
  ]);
  // Counted and logged once the retry is really sent (after the batch's send, for a batch).
  onceAcknowledged(deps.producer, () => {
    deps.metrics?.retried.inc({ attempt: String(attempt) }, fields.length);
    deps.logger.warn(
      {
        key,
        fields: fields.map(({ field }) => field),
        attempt,
        next_attempt_in_ms: delayMs,
        correlation_id: request.correlationId,
        reasons: reasons.join('; '),
      },
      'translation failed; the fields will be tried again',
    );
  });
}

/** One field dead-lettered alone, as a request of that field, naming entity, language and field. */
async function deadLetter(
  deps: HandleRequestDeps,
  { message, request }: FailedRequest,
  field: FieldRequest,
  failure: PermanentError,
): Promise<void> {
  const { entityType, entityId, targetLang } = request.data;
  // A request of this field alone goes byte for byte.
  const alone = requestedFields(request.data).length === 1;
  await sendToDeadLetters(
    { producer: deps.producer, codec: deps.codec, consumerGroup: deps.consumerGroup, logger: deps.logger },
    topicName('deadLetter', deps.topicPrefix),
    alone ? message : withPart(fieldMessage(deps.codec, message, request, [field]), field.field),
    {
      code: failure.code,
      message: `${entityType}/${entityId} field ${field.field} -> ${targetLang}: ${failure.message}`,
      attempts: failure.attempts,
    },
    () => deps.deadLetters?.inc({ group: deps.consumerGroup, code: failure.code }),
  );
}

/** The message marked as holding one part of its original (DEAD_LETTER_PART_HEADER). */
function withPart(message: IncomingMessage, part: string): IncomingMessage {
  return { ...message, headers: { ...message.headers, [DEAD_LETTER_PART_HEADER]: part } };
}

/**
 * Each field's result or error: the fields of a format through the use case's batch together (one
 * engine batch), in runs of at most `maxTextChars` characters (a field longer than that alone, which
 * the use case refuses: TEXT_TOO_LONG). Throws what fails the request as a whole.
 */
async function translateFields(
  deps: HandleRequestDeps,
  request: TranslationRequested,
): Promise<FieldOutcome[]> {
  const { data } = request;
  const fields = requestedFields(data);
  const outcomes = new Map<FieldRequest, FieldOutcome>();
  const runs = batchRuns(fields, deps.maxTextChars, (field, error) => outcomes.set(field, { field, error }));
  const origin = {
    correlationId: request.correlationId,
    causationId: request.eventId,
    signal: deps.stopping,
    recordResult: false,
  };
  await Promise.all(
    runs.map(async (run) => {
      const items: readonly (BatchItem | Error)[] = await deps.translateText
        .executeBatch(
          {
            texts: run.fields.map(({ text }) => text),
            source: data.sourceLang,
            target: data.targetLang,
            format: run.format,
          },
          origin,
        )
        .catch((err: unknown) => {
          // A run too long is a field longer than the limit on its own: that field's failure.
          if (err instanceof AppError && err.code === 'TEXT_TOO_LONG') return run.fields.map(() => err);
          throw err;
        });
      run.fields.forEach((field, i) => {
        const item = items[i];
        outcomes.set(
          field,
          item === undefined || item instanceof Error
            ? { field, error: item ?? new Error('no answer for the field') }
            : { field, result: item },
        );
      });
    }),
  );
  return fields.map((field) => outcomes.get(field) as FieldOutcome);
}

/** A run of fields of one format, translated by one call of the use case. */
interface BatchRun {
  readonly format: TextFormat;
  readonly fields: FieldRequest[];
  chars: number;
}

/** The fields in runs of one format and at most `maxChars` characters; a field of no known format is refused. */
function batchRuns(
  fields: readonly FieldRequest[],
  maxChars: number,
  refuse: (field: FieldRequest, error: PermanentError) => void,
): BatchRun[] {
  const runs: BatchRun[] = [];
  for (const field of fields) {
    const format = textFormat(field.format);
    if (!format) {
      const known = TEXT_FORMATS.join(', ');
      const message = `format ${JSON.stringify(field.format.slice(0, 40))} is not one of ${known}`;
      refuse(field, new PermanentError('FORMAT_UNSUPPORTED', message));
      continue;
    }
    const chars = field.text.length;
    let run = runs.findLast((r) => r.format === format);
    if (!run || run.chars + chars > maxChars) {
      run = { format, fields: [], chars: 0 };
      runs.push(run);
    }
    run.fields.push(field);
    run.chars += chars;
  }
  return runs;
}

const textFormat = (format: string): TextFormat | undefined =>
  (TEXT_FORMATS as readonly string[]).includes(format) ? (format as TextFormat) : undefined;

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
