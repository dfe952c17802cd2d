import {
  topicName,
  type ContentChanged,
  type ContentChangedData,
  type ContentDeleted,
  type ContentDeletedData,
  type TranslationRequested,
  type TranslationRequestedData,
} from '@tp/contracts';
import type { OutboxEntry } from '@tp/db';
import { newEvent, type EventContext } from '@tp/schemas';

import { contentChangedKey, translationMessageKey } from './message-keys.js';
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
