import {
  FREE_TEXT_ENTITY_TYPE,
  topicName,
  type ContentChanged,
  type ContentChangedData,
  type ContentDeleted,
  type ContentDeletedData,
  type TranslationCompleted,
  type TranslationCompletedData,
  type TranslationRequested,
  type TranslationRequestedData,
} from '@tp/contracts';
import type { OutboxEntry } from '@tp/db';
import { newEvent, type EventContext } from '@tp/schemas';

import { contentChangedKey, translationMessageKey } from './message-keys.js';
import { sourceHash } from './source-hash.js';
import type { StoredField } from './stored-field.js';

/** What a translation request carries of a stored field it asks for (its format `text` when not given). */
export type RequestedField = Omit<StoredField, 'module'>;

/** One field of a TranslationRequested, as the translator works on it. */
export type FieldRequest = TranslationRequestedData['moreFields'][number];

/** Most fields one TranslationRequested carries (and one engine batch translates). */
export const MAX_REQUEST_FIELDS = 100;
/**
 * Most bytes of source text one TranslationRequested carries (a longer field travels alone): its
 * result, at up to four bytes per source byte, stays far below a topic's limit, and its characters
 * stay within the translator's MAX_TEXT_CHARS (50,000 by default) for one engine batch.
 */
export const MAX_REQUEST_TEXT_BYTES = 32 * 1024;

/** Every field a TranslationRequested asks for, in order: the first (v1's only one), then `moreFields`. */
export function requestedFields(data: TranslationRequestedData): FieldRequest[] {
  const first: FieldRequest = {
    field: data.field,
    text: data.text,
    sourceHash: data.sourceHash,
    sourceVersion: data.sourceVersion,
    format: data.format,
  };
  return [first, ...data.moreFields];
}

/**
 * The request to translate stored fields of one entity, all in one source language, into
 * `targetLang`, with their stored versions and hashes: the first field where v1 had its only one,
 * the others in `moreFields`.
 */
export function translationRequestedData(
  [first, ...more]: readonly [RequestedField, ...RequestedField[]],
  targetLang: string,
): TranslationRequestedData {
  return {
    entityType: first.entityType,
    entityId: first.entityId,
    field: first.field,
    sourceLang: first.sourceLang,
    targetLang,
    text: first.text,
    sourceHash: first.sourceHash,
    sourceVersion: first.sourceVersion,
    format: first.format ?? 'text',
    moreFields: more.map((stored) => ({
      field: stored.field,
      text: stored.text,
      sourceHash: stored.sourceHash,
      sourceVersion: stored.sourceVersion,
      format: stored.format ?? 'text',
    })),
  };
}

/**
 * The requests that translate `fields` (of any entities) into `targetLang`: one per entity and source
 * language, in the order the fields come, split at MAX_REQUEST_FIELDS fields or MAX_REQUEST_TEXT_BYTES
 * bytes of text (a field longer than that alone).
 */
export function translationRequests(
  fields: readonly RequestedField[],
  targetLang: string,
): TranslationRequestedData[] {
  const groups = new Map<string, RequestedField[][]>();
  const bytes = new Map<RequestedField[], number>();
  for (const field of fields) {
    const group = `${field.entityType}\u0000${field.entityId}\u0000${field.sourceLang}`;
    const chunks = groups.get(group) ?? [];
    groups.set(group, chunks);
    const size = Buffer.byteLength(field.text);
    let last = chunks[chunks.length - 1];
    if (
      !last ||
      last.length >= MAX_REQUEST_FIELDS ||
      (bytes.get(last) ?? 0) + size > MAX_REQUEST_TEXT_BYTES
    ) {
      last = [];
      chunks.push(last);
    }
    last.push(field);
    bytes.set(last, (bytes.get(last) ?? 0) + size);
  }
  return [...groups.values()].flatMap((chunks) =>
    chunks.map((chunk) =>
      translationRequestedData(chunk as [RequestedField, ...RequestedField[]], targetLang),
    ),
  );
}

/** A TranslationRequested for the outbox, on the request topic under its entity's and language's key. */
export function translationRequestedEntry(
  data: TranslationRequestedData,
  topicPrefix: string,
  context: EventContext,
): OutboxEntry & { readonly event: TranslationRequested } {
  return {
    topic: topicName('translationRequested', topicPrefix),
    key: translationMessageKey(data),
    event: newEvent('TranslationRequested', data, context),
  };
}

/** The field a translation answers: its entity, field, stored version and source hash. */
export type TranslatedField = Pick<
  TranslationRequestedData,
  'entityType' | 'entityId' | 'field' | 'sourceHash' | 'sourceVersion'
>;

/** What the chain made of one text: the language codes as normalised, the engine, the truncation. */
export interface TranslationOutcome {
  readonly translatedText: string;
  /** Source language actually used (for `auto`, the language found; `auto` only when nobody could tell). */
  readonly source: string;
  readonly target: string;
  readonly engine: string;
  readonly truncated: boolean;
  /** A weaker engine answered because a stronger one that serves the pair failed (v4). */
  readonly fallback: boolean;
  /** Set only when the request said `auto`. */
  readonly detectedSource?: string;
}

/**
 * Free text has no business entity, so its translation is filed under entity type `text`, field
 * `text` and the id the caller gives (the translator uses the hot cache hash of source, target and
 * text, so the same text translated again lands on the same content_translations row).
 * `sourceVersion` is 0 because free text has no versions; `sourceHash` is the full SHA-256 of the
 * text, so a consumer can tell the text apart from a hash collision.
 */
export function freeTextField(entityId: string, text: string): TranslatedField {
  return {
    entityType: FREE_TEXT_ENTITY_TYPE,
    entityId,
    field: 'text',
    sourceHash: sourceHash(text),
    sourceVersion: 0,
  };
}

/** One field's result, as translationCompletedData takes it. */
export interface FieldTranslation {
  readonly field: TranslatedField;
  readonly outcome: TranslationOutcome;
}

/** A field of a request that was not translated: retried (`retrying`) or dead-lettered on its own. */
export type FieldFailure = TranslationCompletedData['failures'][number];

/**
 * The result of translating fields of one entity into one language: the first result where v4 had
 * its only one, the others in `moreResults`, the fields that failed in `failures`. Language codes
 * and `requestedAt` are the first result's: one request's fields share their pair. `requestedAt` is
 * the occurredAt of the request it answers (it orders the results of one source version: a
 * retranslation's wins); free text, which has no request, gives the time of its result. Free text
 * is the one case where results of several entities travel together (each text is its own entity):
 * a result of another entity than the first names it (v6 `entityId`).
 */
export function translationCompletedData(
  [first, ...more]: readonly [FieldTranslation, ...FieldTranslation[]],
  requestedAt: number,
  failures: readonly FieldFailure[] = [],
): TranslationCompletedData {
  const { field, outcome } = first;
  return {
    entityType: field.entityType,
    entityId: field.entityId,
    field: field.field,
    sourceLang: outcome.source,
    targetLang: outcome.target,
    translatedText: outcome.translatedText,
    sourceHash: field.sourceHash,
    sourceVersion: field.sourceVersion,
    engine: outcome.engine,
    truncated: outcome.truncated,
    detectedSourceLang: outcome.detectedSource ?? null,
    requestedAt,
    fallback: outcome.fallback,
    moreResults: more.map(({ field: other, outcome: result }) => ({
      entityId: other.entityId === field.entityId ? null : other.entityId,
      field: other.field,
      translatedText: result.translatedText,
      sourceHash: other.sourceHash,
      sourceVersion: other.sourceVersion,
      engine: result.engine,
      truncated: result.truncated,
      fallback: result.fallback,
      detectedSourceLang: result.detectedSource ?? null,
    })),
    failures: [...failures],
  };
}

/** One translated field of a TranslationCompleted, with what its results share and its own entity. */
export type CompletedField = Omit<TranslationCompletedData['moreResults'][number], 'entityId'> &
  Pick<TranslationCompletedData, 'entityType' | 'entityId' | 'sourceLang' | 'targetLang' | 'requestedAt'>;

/**
 * Every result a TranslationCompleted carries, in order: the first (v4's only one), then
 * `moreResults`, each under its own entity when it names one (v6), else the event's.
 */
export function completedFields(data: TranslationCompletedData): CompletedField[] {
  const shared = {
    entityType: data.entityType,
    sourceLang: data.sourceLang,
    targetLang: data.targetLang,
    requestedAt: data.requestedAt,
  };
  const first = {
    entityId: data.entityId,
    field: data.field,
    translatedText: data.translatedText,
    sourceHash: data.sourceHash,
    sourceVersion: data.sourceVersion,
    engine: data.engine,
    truncated: data.truncated,
    fallback: data.fallback,
    detectedSourceLang: data.detectedSourceLang,
  };
  const more = data.moreResults.map(({ entityId, ...result }) => ({
    ...result,
    entityId: entityId ?? data.entityId,
  }));
  return [first, ...more].map((result) => ({ ...shared, ...result }));
}

/** A TranslationCompleted for the outbox, on the completed topic under its entity's and language's key. */
export function translationCompletedEntry(
  data: TranslationCompletedData,
  topicPrefix: string,
  context: EventContext,
): OutboxEntry & { readonly event: TranslationCompleted } {
  return {
    topic: topicName('translationCompleted', topicPrefix),
    key: translationMessageKey(data),
    event: newEvent('TranslationCompleted', data, context),
  };
}

/** The ContentChanged of a reported change for the outbox, keyed by entity. */
export function contentChangedEntry(
  change: ContentChangedData,
  topicPrefix: string,
  context: EventContext,
): OutboxEntry & { readonly event: ContentChanged } {
  const data: ContentChangedData = {
    module: change.module,
    entityType: change.entityType,
    entityId: change.entityId,
    sourceLang: change.sourceLang,
    sourceVersion: change.sourceVersion,
    fields: change.fields.map(({ name, text, format }) => ({ name, text, format })),
  };
  return {
    topic: topicName('contentChanged', topicPrefix),
    key: contentChangedKey(change.entityType, change.entityId),
    event: newEvent('ContentChanged', data, context),
  };
}

/**
 * The ContentDeleted of a deleted entity for the outbox: on the content topic under the entity's key,
 * like its changes, so one entity's changes and deletion stay in order.
 */
export function contentDeletedEntry(
  deletion: ContentDeletedData,
  topicPrefix: string,
  context: EventContext,
): OutboxEntry & { readonly event: ContentDeleted } {
  const data: ContentDeletedData = {
    module: deletion.module,
    entityType: deletion.entityType,
    entityId: deletion.entityId,
    sourceVersion: deletion.sourceVersion ?? null,
  };
  return {
    topic: topicName('contentChanged', topicPrefix),
    key: contentChangedKey(deletion.entityType, deletion.entityId),
    event: newEvent('ContentDeleted', data, context),
  };
}
