/** What a translation message is keyed by: one entity in one target language. */
export interface BatchAddress {
  readonly entityType: string;
  readonly entityId: string;
  readonly targetLang: string;
}

/**
 * The Kafka key of TranslationRequested and TranslationCompleted: `entityType:entityId:targetLang`.
 * One entity's requests and results in one language share a partition, so each of its fields' stay
 * in order. (Producers before TranslationRequested v2 keyed one field: `...:field:targetLang`; the
 * projection's version guard orders those against the new ones.)
 */
export function translationMessageKey({ entityType, entityId, targetLang }: BatchAddress): string {
  return `${entityType}:${entityId}:${targetLang}`;
}

/** The Kafka key of ContentChanged: `entityType:entityId`, so one entity's changes stay in order. */
export function contentChangedKey(entityType: string, entityId: string): string {
  return `${entityType}:${entityId}`;
}
