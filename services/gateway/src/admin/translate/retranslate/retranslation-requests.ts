import { topicName } from '@tp/contracts';
import type { OutboxEntry } from '@tp/db';
import { newEvent } from '@tp/schemas';

/** What a retranslation needs of a stored field (a source_contents row). */
export interface StoredField {
  readonly entityType: string;
  readonly entityId: string;
  readonly field: string;
  readonly sourceLang: string;
  readonly text: string;
  readonly sourceHash: string;
  readonly sourceVersion: number;
}

export interface EventOrigin {
  readonly correlationId: string;
  readonly causationId: string;
}

export interface Retranslation {
  readonly entries: readonly OutboxEntry[];
  /** Fields in the order given. */
  readonly fields: readonly string[];
  /** Target languages at least one field was requested in, in configuration order. */
  readonly targetLanguages: readonly string[];
}

/**
 * One TranslationRequested per stored field and configured target language, skipping a field's own
 * source language: what the planner would request if every field had just changed. The stored version
 * and hash go along, so the projection treats the results like any other of that version.
 */
export function retranslationRequests(
  fields: readonly StoredField[],
  targets: readonly string[],
  topicPrefix: string,
  origin: EventOrigin,
): Retranslation {
  const topic = topicName('translationRequested', topicPrefix);
  const used = new Set<string>();
  const entries = fields.flatMap((stored) =>
    targets
      .filter((target) => target !== stored.sourceLang)
      .map((target): OutboxEntry => {
        used.add(target);
        return {
          topic,
          key: `${stored.entityType}:${stored.entityId}:${stored.field}:${target}`,
          event: newEvent(
            'TranslationRequested',
            {
              entityType: stored.entityType,
              entityId: stored.entityId,
              field: stored.field,
              sourceLang: stored.sourceLang,
              targetLang: target,
              text: stored.text,
              sourceHash: stored.sourceHash,
              sourceVersion: stored.sourceVersion,
            },
            origin,
          ),
        };
      }),
  );
  return {
    entries,
    fields: fields.map((stored) => stored.field),
    targetLanguages: targets.filter((target) => used.has(target)),
  };
}
