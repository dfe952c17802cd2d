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

/** What a translation request carries of the stored field it asks for. */
export type RequestedField = Omit<StoredField, 'module'>;

/** The request to translate one stored field into `targetLang`, with its stored version and hash. */
export function translationRequestedData(
  stored: RequestedField,
  targetLang: string,
): TranslationRequestedData {
  return {
    entityType: stored.entityType,
    entityId: stored.entityId,
    field: stored.field,
    sourceLang: stored.sourceLang,
    targetLang,
    text: stored.text,
    sourceHash: stored.sourceHash,
    sourceVersion: stored.sourceVersion,
  };
}

/** A TranslationRequested for the outbox, on the request topic under the field's message key. */
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

/**
 * The result of translating one field: same entity, field, version and hash, the language codes and
 * engine of the outcome. `requestedAt` is the occurredAt of the request it answers (it orders the
 * results of one source version: a retranslation's wins); free text, which has no request, gives the
 * time of its result.
 */
export function translationCompletedData(
  field: TranslatedField,
  outcome: TranslationOutcome,
  requestedAt: number,
): TranslationCompletedData {
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
  };
}

/** A TranslationCompleted for the outbox, on the completed topic under the field's message key. */
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
    fields: change.fields.map(({ name, text }) => ({ name, text })),
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
