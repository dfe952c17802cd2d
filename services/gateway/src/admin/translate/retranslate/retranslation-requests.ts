import type { OutboxEntry } from '@tp/db';
import { translationRequestedData, translationRequestedEntry, type RequestedField } from '@tp/pipeline';
import type { EventContext } from '@tp/schemas';

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
  fields: readonly RequestedField[],
  targets: readonly string[],
  topicPrefix: string,
  origin: EventContext,
): Retranslation {
  const used = new Set<string>();
  const entries = fields.flatMap((stored) =>
    targets
      .filter((target) => target !== stored.sourceLang)
      .map((target): OutboxEntry => {
        used.add(target);
        return translationRequestedEntry(translationRequestedData(stored, target), topicPrefix, origin);
      }),
  );
  return {
    entries,
    fields: fields.map((stored) => stored.field),
    targetLanguages: targets.filter((target) => used.has(target)),
  };
}
