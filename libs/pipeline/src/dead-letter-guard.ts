import {
  MessageTooLargeError,
  onceAcknowledged,
  type IncomingMessage,
  type MessageHandler,
  type MessageProducer,
} from '@tp/kafka';
import { perRegistry, type Logger } from '@tp/runtime';
import { SchemaError, type EventCodec } from '@tp/schemas';
import { Counter, type Registry } from 'prom-client';

import { deadLetterMessage, deadLetterTopic, type Failure } from './dead-letter-message.js';
import { PermanentError } from './permanent-error.js';

export interface DeadLetterGuardOptions {
  readonly producer: MessageProducer;
  readonly codec: EventCodec;
  readonly consumerGroup: string;
  readonly logger: Logger;
  readonly topicPrefix?: string;
  readonly metrics?: Registry;
}

/** pipeline_dead_letters_total, once per registry (the guard's, and the outbox relay's). */
export const deadLetterCounter = perRegistry(
  (registry): Counter<'group' | 'code'> =>
    new Counter({
      name: 'pipeline_dead_letters_total',
      help: 'Messages sent to the dead-letter topic, by consumer group and error code',
      labelNames: ['group', 'code'] as const,
      registers: [registry],
    }),
);

/** The failure to keep for a message, or undefined when the error is transient (retry it). */
export function permanentFailure(err: unknown): Failure | undefined {
  if (err instanceof PermanentError) return { code: err.code, message: err.message, attempts: err.attempts };
  if (err instanceof SchemaError) return { code: err.code, message: err.message, attempts: 1 };
  // What the message made (a result, a retry) can never be sent: the message goes to the dead letters.
  if (err instanceof MessageTooLargeError) return { code: err.code, message: err.message, attempts: 1 };
  return undefined;
}

/**
 * Wraps a handler so that a poison message cannot stop its partition: a permanent failure (a
 * PermanentError, or a message that does not decode) is published to the dead-letter topic and the
 * message counts as handled. The dead letter is acknowledged by Kafka before the offset moves on, so
 * nothing is lost; if that publish fails, the error is rethrown and the message comes again.
 * Transient errors are rethrown untouched: the consumer delivers the message again.
 */
export function guardWithDeadLetters(
  handler: MessageHandler,
  options: DeadLetterGuardOptions,
): MessageHandler {
  const counter = options.metrics ? deadLetterCounter(options.metrics) : undefined;
  const topic = deadLetterTopic(options.topicPrefix);
  return async (message: IncomingMessage) => {
    try {
      await handler(message);
    } catch (err) {
      const failure = permanentFailure(err);
      if (!failure) throw err;
      await sendToDeadLetters(options, topic, message, failure, () =>
        counter?.inc({ group: options.consumerGroup, code: failure.code }),
      );
    }
  };
}

/**
 * Publishes one dead letter; once the broker acknowledged it (at once for a producer, after the
 * batch's send for a batch's OutgoingBatch), logs it and runs `sent` (the metric). A batch whose send
 * fails comes again, so a dead letter is logged and counted once, when it really was sent.
 */
export async function sendToDeadLetters(
  options: Pick<DeadLetterGuardOptions, 'producer' | 'codec' | 'consumerGroup' | 'logger'>,
  topic: string,
  message: IncomingMessage,
  failure: Failure,
  sent?: () => void,
): Promise<void> {
  try {
    await options.producer.send(topic, [
      deadLetterMessage(options.codec, message, failure, options.consumerGroup),
    ]);
  } catch (err) {
    if (!(err instanceof MessageTooLargeError)) throw err;
    // Never a stall: the dead letter goes without the original value, which stays readable at its
    // topic, partition and offset until the topic's retention ends (the entry says where).
    const bytes = message.value?.length ?? 0;
    const note = `[original value of ${bytes} bytes not kept: the dead letter would exceed ${err.maxMessageBytes} bytes; read it at ${message.topic}/${message.partition}@${message.offset}] ${failure.message}`;
    const valueless = { ...message, value: Buffer.alloc(0) };
    await options.producer.send(topic, [
      deadLetterMessage(options.codec, valueless, { ...failure, message: note }, options.consumerGroup),
    ]);
  }
  onceAcknowledged(options.producer, () => {
    sent?.();
    logDeadLetter(options.logger, message, failure);
  });
}

function logDeadLetter(logger: DeadLetterGuardOptions['logger'], message: IncomingMessage, failure: Failure) {
  logger.warn(
    {
      topic: message.topic,
      partition: message.partition,
      offset: message.offset,
      code: failure.code,
      attempts: failure.attempts,
      err: failure.message,
    },
    'message sent to the dead letters',
  );
}
