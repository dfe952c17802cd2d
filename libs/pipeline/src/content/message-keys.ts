/** What a field's translation messages are keyed by. */
export interface FieldAddress {
  readonly entityType: string;
  readonly entityId: string;
  readonly field: string;
  readonly targetLang: string;
}

/**
 * The Kafka key of TranslationRequested and TranslationCompleted: `entityType:entityId:field:targetLang`.
 * One field's requests and results in one language share a partition, so they stay in order.
 */
export function translationMessageKey({ entityType, entityId, field, targetLang }: FieldAddress): string {
  return `${entityType}:${entityId}:${field}:${targetLang}`;
}

/** The Kafka key of ContentChanged: `entityType:entityId`, so one entity's changes stay in order. */
export function contentChangedKey(entityType: string, entityId: string): string {
  return `${entityType}:${entityId}`;
}
