import type { OutboxEntry } from '@tp/db';
import { translationRequestedEntry, translationRequests, type RequestedField } from '@tp/pipeline';
import type { EventContext } from '@tp/schemas';

export interface Retranslation {
  readonly entries: readonly OutboxEntry[];
  /** Field translations requested (field x language), which the entries carry. */
  readonly requested: number;
  /** Fields in the order given. */
  readonly fields: readonly string[];
  /** Target languages at least one field was requested in, in configuration order. */
  readonly targetLanguages: readonly string[];
}

/**
 * The TranslationRequested of every stored field in each configured target language (one per
 * language, or as few as fit: translationRequests), skipping a field's own source language: what the planner would request if every field had just changed. The stored version
 * and hash go along, so the projection treats the results like any other of that version.
 */
export function retranslationRequests(
  fields: readonly RequestedField[],
  targets: readonly string[],
  topicPrefix: string,
  origin: EventContext,
): Retranslation {
  const used = new Set<string>();
  let requested = 0;
  const entries = targets.flatMap((target) => {
    const translated = fields.filter((stored) => stored.sourceLang !== target);
    if (translated.length > 0) used.add(target);
    requested += translated.length;
    return translationRequests(translated, target).map((request): OutboxEntry =>
      translationRequestedEntry(request, topicPrefix, origin),
    );
  });
  return {
    entries,
    requested,
    fields: fields.map((stored) => stored.field),
    targetLanguages: targets.filter((target) => used.has(target)),
  };
}
