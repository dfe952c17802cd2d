// Generated from schemas/avro by `npm run contracts:gen`. Do not edit: change the .avsc files and re-run.
// A unit test (schemas/src/generate-contracts.unit.test.ts) fails when this file is out of date.

/** A business system reports changed source content of one entity. Topic content.changed.v1, key <entityType>:<entityId>. */
export interface ContentChanged {
  /** Unique id of this event; consumers use it for idempotence. */
  readonly eventId: string;
  /** Name of the event, equal to the record name. */
  readonly eventType: 'ContentChanged';
  /** Schema version the producer wrote with. */
  readonly eventVersion: number;
  /** When the fact happened (epoch ms). */
  readonly occurredAt: number;
  /** Id shared by everything caused by one original request. */
  readonly correlationId: string;
  /** eventId (or request id) of the direct cause. */
  readonly causationId: null | string;
  readonly data: ContentChangedData;
}

export interface ContentChangedData {
  /** Business module that owns the entity, e.g. catalog. */
  readonly module: string;
  /** Entity type, e.g. vendor. */
  readonly entityType: string;
  readonly entityId: string;
  /** Language code of the source text, e.g. zh-CN. */
  readonly sourceLang: string;
  /** Monotonic version of the entity in the source system. */
  readonly sourceVersion: number;
  readonly fields: readonly ChangedField[];
}

export interface ChangedField {
  readonly name: string;
  readonly text: string;
  /** v2: how the text is written: text (the default), html or markdown. Its translations are written the same way. */
  readonly format: string;
}

/** A business system deleted one entity: its source and every stored translation go. Topic content.changed.v1 (with the changes, so one entity keeps its order), key <entityType>:<entityId>. */
export interface ContentDeleted {
  /** Unique id of this event; consumers use it for idempotence. */
  readonly eventId: string;
  /** Name of the event, equal to the record name. */
  readonly eventType: 'ContentDeleted';
  /** Schema version the producer wrote with. */
  readonly eventVersion: number;
  /** When the fact happened (epoch ms). */
  readonly occurredAt: number;
  /** Id shared by everything caused by one original request. */
  readonly correlationId: string;
  /** eventId (or request id) of the direct cause. */
  readonly causationId: null | string;
  readonly data: ContentDeletedData;
}

export interface ContentDeletedData {
  /** Business module that owns the entity, e.g. catalog. */
  readonly module: string;
  /** Entity type, e.g. vendor. */
  readonly entityType: string;
  readonly entityId: string;
  /** Version of the entity in the source system at its deletion; null: the highest stored version. A ContentChanged of this version or older is ignored afterwards; a newer one brings the entity back. */
  readonly sourceVersion: null | number;
}

/** A message that failed permanently, kept byte for byte for replay. Topic translation.dlq.v1, key = original key. */
export interface DeadLetter {
  /** Unique id of this event; consumers use it for idempotence. */
  readonly eventId: string;
  /** Name of the event, equal to the record name. */
  readonly eventType: 'DeadLetter';
  /** Schema version the producer wrote with. */
  readonly eventVersion: number;
  /** When the fact happened (epoch ms). */
  readonly occurredAt: number;
  /** Id shared by everything caused by one original request. */
  readonly correlationId: string;
  /** eventId (or request id) of the direct cause. */
  readonly causationId: null | string;
  readonly data: DeadLetterData;
}

export interface DeadLetterData {
  readonly originalTopic: string;
  readonly originalPartition: number;
  readonly originalOffset: number;
  readonly originalKey: null | Buffer;
  readonly originalValue: Buffer;
  readonly originalHeaders: Readonly<Record<string, Buffer>>;
  readonly consumerGroup: string;
  /** Stable error code of the last failure. */
  readonly errorCode: string;
  readonly errorMessage: string;
  readonly attempts: number;
  readonly failedAt: number;
}

/** Field translations of one entity in one language are available (before v5: one field); free text: a request's texts, each its own entity (v6). Topic translation.completed.v1, keyed like the request it answers. */
export interface TranslationCompleted {
  /** Unique id of this event; consumers use it for idempotence. */
  readonly eventId: string;
  /** Name of the event, equal to the record name. */
  readonly eventType: 'TranslationCompleted';
  /** Schema version the producer wrote with. */
  readonly eventVersion: number;
  /** When the fact happened (epoch ms). */
  readonly occurredAt: number;
  /** Id shared by everything caused by one original request. */
  readonly correlationId: string;
  /** eventId (or request id) of the direct cause. */
  readonly causationId: null | string;
  readonly data: TranslationCompletedData;
}

export interface TranslationCompletedData {
  readonly entityType: string;
  readonly entityId: string;
  readonly field: string;
  readonly sourceLang: string;
  readonly targetLang: string;
  readonly translatedText: string;
  readonly sourceHash: string;
  readonly sourceVersion: number;
  /** Engine that produced the text, e.g. deepl, mymemory, libretranslate, offline. */
  readonly engine: string;
  /** v2: the engine translated only a prefix (e.g. MyMemory at 500 characters). */
  readonly truncated: boolean;
  /** v2: language the engine detected when the source was auto. */
  readonly detectedSourceLang: null | string;
  /** v3: occurredAt (epoch ms) of the TranslationRequested this answers; 0 when unknown. Orders results of the same source version: a retranslation's result wins over a late older one. */
  readonly requestedAt: number;
  /** v4: a weaker result: an engine earlier in the chain that serves the pair failed or had its breaker open, so a later slot answered. The read path asks for it again; a result that is not fallback replaces it. */
  readonly fallback: boolean;
  /** v5: results of the request's other fields, in the same language and under the same requestedAt as the first. A reader before v5 sees the first result only: upgrade the projection before the translators. */
  readonly moreResults: readonly FieldResult[];
  /** v5: fields of the request that were not translated, each retried or dead-lettered on its own. Informational: the projection writes nothing for them. */
  readonly failures: readonly FieldFailure[];
}

export interface FieldResult {
  /** v6: the entity of this result when it is not the event's: only free text (entityType text), whose texts are each their own entity, so one event carries a request's results. A reader before v6 files such a result under the event's entity: upgrade the projection before the translators. */
  readonly entityId: null | string;
  readonly field: string;
  readonly translatedText: string;
  readonly sourceHash: string;
  readonly sourceVersion: number;
  readonly engine: string;
  readonly truncated: boolean;
  readonly fallback: boolean;
  readonly detectedSourceLang: null | string;
}

export interface FieldFailure {
  readonly field: string;
  readonly sourceHash: string;
  readonly sourceVersion: number;
  /** Error code, e.g. TRANSLATION_FAILED, TEXT_TOO_LONG. */
  readonly code: string;
  readonly reason: string;
  /** true: the field went to the retry topic; false: it was dead-lettered. */
  readonly retrying: boolean;
}

/** Fields of one entity need translations into one language (v1: one field). Topic translation.requested.v1, key <entityType>:<entityId>:<targetLang> (v1 producers: <entityType>:<entityId>:<field>:<targetLang>). */
export interface TranslationRequested {
  /** Unique id of this event; consumers use it for idempotence. */
  readonly eventId: string;
  /** Name of the event, equal to the record name. */
  readonly eventType: 'TranslationRequested';
  /** Schema version the producer wrote with. */
  readonly eventVersion: number;
  /** When the fact happened (epoch ms). */
  readonly occurredAt: number;
  /** Id shared by everything caused by one original request. */
  readonly correlationId: string;
  /** eventId (or request id) of the direct cause. */
  readonly causationId: null | string;
  readonly data: TranslationRequestedData;
}

export interface TranslationRequestedData {
  readonly entityType: string;
  readonly entityId: string;
  readonly field: string;
  readonly sourceLang: string;
  readonly targetLang: string;
  readonly text: string;
  /** SHA-256 hex of the source text. */
  readonly sourceHash: string;
  readonly sourceVersion: number;
  /** v2: how the first field's text is written: text, html or markdown. */
  readonly format: string;
  /** v2: the entity's other fields to translate into the same language, in one engine batch with the first. A reader before v2 sees the first field only: upgrade the translators before the producers. */
  readonly moreFields: readonly FieldRequest[];
}

export interface FieldRequest {
  readonly field: string;
  readonly text: string;
  /** SHA-256 hex of the source text. */
  readonly sourceHash: string;
  readonly sourceVersion: number;
  /** text, html or markdown. */
  readonly format: string;
}

export type IntegrationEvent = ContentChanged | ContentDeleted | DeadLetter | TranslationCompleted | TranslationRequested;

export type EventType = IntegrationEvent['eventType'];

export const EVENT_TYPES = ['ContentChanged', 'ContentDeleted', 'DeadLetter', 'TranslationCompleted', 'TranslationRequested'] as const;

/** Schema version each event type is written with (the latest .avsc). */
export const LATEST_SCHEMA_VERSION = {
  ContentChanged: 2,
  ContentDeleted: 1,
  DeadLetter: 1,
  TranslationCompleted: 6,
  TranslationRequested: 2,
} as const satisfies Record<EventType, number>;
