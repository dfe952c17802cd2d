import { randomUUID } from 'node:crypto';

import { topicName, type TopicKey } from '@tp/contracts';
import type { OutboxEntry } from '@tp/db';
import { DEFAULT_MAX_MESSAGE_BYTES, recordBudget, recordBytes } from '@tp/kafka';
import { CONTENT_COLUMN_CHARS, translationRequestedData, translationRequestedEntry } from '@tp/pipeline';
import { AppError } from '@tp/runtime';
import type { EventCodec } from '@tp/schemas';

import type { ContentChange } from './report-change.command.js';

/**
 * Bytes an engine's translation may take per byte of its source, for the worst case: UTF-8 spends up
 * to three times more bytes on a script (Latin to Devanagari or Thai) and translations run longer
 * than their source. A result beyond it is dead-lettered by the translator (MESSAGE_TOO_LARGE).
 */
export const RESULT_BYTES_PER_SOURCE_BYTE = 4;
/** What a result adds to its request besides the text: engine, detected language, other headers. */
const RESULT_EXTRA_BYTES = 512;
/** The headers a request gains on the retry topic (attempt number and due time). */
const RETRY_EXTRA_BYTES = 64;
/** Longest target language code a request can carry (the column's length). */
const LONGEST_LANGUAGE = 'x'.repeat(CONTENT_COLUMN_CHARS.lang);

/** The `max.message.bytes` of a topic (the producers' TopicLimits). */
export type TopicLimit = (topic: string) => Promise<number>;

/**
 * Refuses (413 CONTENT_TOO_LARGE) a change the pipeline could not deliver: its ContentChanged larger
 * than the content topic takes, or a field whose TranslationRequested (on the request or retry topic)
 * or whose TranslationCompleted, at RESULT_BYTES_PER_SOURCE_BYTE, would be larger than its topic
 * takes. Counted in bytes of the encoded records, so CJK text (3 bytes a character) counts as it
 * travels. When the cluster cannot be asked, Kafka's default limit stands in.
 */
export async function assertDeliverable(
  change: ContentChange,
  entry: OutboxEntry,
  codec: EventCodec,
  topicPrefix: string,
  limitOf: TopicLimit,
): Promise<void> {
  const budget = async (key: TopicKey) => {
    const topic = topicName(key, topicPrefix);
    const limit = await limitOf(topic).catch(() => DEFAULT_MAX_MESSAGE_BYTES);
    return { topic, bytes: recordBudget(limit), limit };
  };
  const [content, requested, retry, completed] = await Promise.all([
    budget('contentChanged'),
    budget('translationRequested'),
    budget('translationRequestedRetry'),
    budget('translationCompleted'),
  ]);
  const changeBytes = recordBytes({ key: entry.key, ...codec.encode(entry.event) });
  if (changeBytes > content.bytes) tooLarge(undefined, changeBytes, content);
  const requestBudget = requested.bytes < retry.bytes ? requested : retry;
  for (const { name, text } of change.fields) {
    const request = requestBytes(change, name, text, codec);
    if (request + RETRY_EXTRA_BYTES > requestBudget.bytes) {
      tooLarge(name, request + RETRY_EXTRA_BYTES, requestBudget);
    }
    const result =
      request + (RESULT_BYTES_PER_SOURCE_BYTE - 1) * Buffer.byteLength(text) + RESULT_EXTRA_BYTES;
    if (result > completed.bytes) tooLarge(name, result, completed);
  }
}

/**
 * The record bytes of a TranslationRequested of one field alone, for the longest language code (a
 * request of several fields carries at most MAX_REQUEST_TEXT_BYTES of text: far less than a topic takes).
 */
function requestBytes(change: ContentChange, field: string, text: string, codec: EventCodec): number {
  const stored = { ...change, field, text, sourceHash: '0'.repeat(CONTENT_COLUMN_CHARS.sourceHash) };
  const request = translationRequestedEntry(translationRequestedData([stored], LONGEST_LANGUAGE), '', {
    correlationId: randomUUID(),
    causationId: randomUUID(),
  });
  return recordBytes({ key: request.key, ...codec.encode(request.event) });
}

function tooLarge(
  field: string | undefined,
  bytes: number,
  budget: { readonly topic: string; readonly bytes: number; readonly limit: number },
): never {
  const what = field === undefined ? 'the change' : `field ${JSON.stringify(field)}`;
  throw new AppError(
    'CONTENT_TOO_LARGE',
    `${what} would travel as ${bytes} bytes, more than ${budget.topic} takes (${budget.bytes} bytes of records; max.message.bytes ${budget.limit}); send less text${field === undefined ? '' : ' in this field'}`,
    { ...(field === undefined ? {} : { field }), bytes, limit_bytes: budget.bytes, topic: budget.topic },
  );
}
