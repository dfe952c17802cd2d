import type { ContentChangedData, TranslationRequestedData } from '@tp/contracts';
import {
  PermanentError,
  sourceHash,
  translationRequests,
  type RequestedField,
  type StoredSource,
  type TranslationSettings,
} from '@tp/pipeline';
import { normaliseLanguageTag } from '@tp/translation';

export type { TranslationSettings };

/** What the planner knows of one stored field of the entity: its source_contents row without the text. */
export type StoredFieldState = StoredSource;

/** A source_contents row to write: `insert` for a field seen for the first time, else `update`. */
export interface SourceWrite {
  readonly kind: 'insert' | 'update';
  readonly field: string;
  readonly text: string;
  readonly sourceLang: string;
  readonly sourceHash: string;
  readonly sourceVersion: number;
  readonly format: string;
}

export interface TranslationPlan {
  readonly writes: readonly SourceWrite[];
  /**
   * The changed fields of the entity per target language, as few requests as fit (see
   * translationRequests; none while translation is disabled).
   */
  readonly requests: readonly TranslationRequestedData[];
  /** Fields ignored because a newer version of them is stored. */
  readonly stale: readonly string[];
  /** Fields whose text and language did not change (their stored version may still be bumped). */
  readonly unchanged: readonly string[];
  /** Stored fields the change left out: their source and translations are removed. */
  readonly removed: readonly string[];
}

export interface PlanInput {
  /** The change, checked and with its source language normalised (see checkContentChange). */
  readonly change: ContentChangedData;
  /** The module that owns the entity type, or undefined while no module has reported the type. */
  readonly typeOwner: string | undefined;
  /** The entity's stored fields. */
  readonly stored: readonly StoredFieldState[];
  readonly settings: TranslationSettings;
  /** The version the entity was deleted at (its tombstone), if it was deleted. */
  readonly deletedVersion?: number;
  /** `field` -> languages it has a human translation in (only needed with human-only languages). */
  readonly humanTranslations?: ReadonlyMap<string, ReadonlySet<string>>;
}

/**
 * Decides what a ContentChanged does: which source fields to store and which translations to request.
 * A change of the version the entity was deleted at, or older, is stale as a whole: it writes
 * nothing. A stored field the change leaves out is removed, unless its stored version is newer than
 * the change. A field whose stored version is newer is stale and ignored, and so is a field new to
 * an entity stored at a newer version; a field whose text (hash), language and format
 * are unchanged requests nothing, though a newer version is recorded; a new or changed field requests
 * one translation per target language other than the source language, unless translation is disabled.
 * A type reported by another module is refused (MODULE_CONFLICT): one type belongs to one module.
 * A human translation in a human-only language is not replaced: nothing is requested for it.
 */
export function planTranslations(input: PlanInput): TranslationPlan {
  const { change, typeOwner, stored, settings, deletedVersion, humanTranslations } = input;
  const foreign = [typeOwner, ...stored.map((s) => s.module)].find(
    (module) => module !== undefined && module !== change.module,
  );
  if (foreign !== undefined) {
    throw new PermanentError(
      'MODULE_CONFLICT',
      `entity type ${change.entityType} belongs to module ${foreign}, not ${change.module}`,
    );
  }
  if (deletedVersion !== undefined && change.sourceVersion <= deletedVersion) {
    const stale = change.fields.map((f) => f.name);
    return { writes: [], requests: [], stale, unchanged: [], removed: [] };
  }
  const byField = new Map(stored.map((s) => [s.field, s]));
  const newest = Math.max(-1, ...stored.map((s) => s.sourceVersion));
  const targets = settings.enabled ? targetLanguages(settings.targetLanguages, change.sourceLang) : [];
  const writes: SourceWrite[] = [];
  const changed: RequestedField[] = [];
  const stale: string[] = [];
  const unchanged: string[] = [];

  for (const { name, text, format } of change.fields) {
    const hash = sourceHash(text);
    const before = byField.get(name);
    const write: SourceWrite = {
      kind: before ? 'update' : 'insert',
      field: name,
      text,
      sourceLang: change.sourceLang,
      sourceHash: hash,
      sourceVersion: change.sourceVersion,
      format,
    };
    // A field new to an entity that is stored at a newer version is stale too: that version's report
    // left it out (or removed it).
    if ((before?.sourceVersion ?? newest) > change.sourceVersion) {
      stale.push(name);
    } else if (before && sameSource(before, { sourceHash: hash, sourceLang: change.sourceLang, format })) {
      unchanged.push(name);
      if (change.sourceVersion > before.sourceVersion) writes.push(write);
    } else {
      writes.push(write);
      changed.push({ ...change, field: name, text, sourceHash: hash, format });
    }
  }
  // A human translation in a human-only language stays: its field is not requested in that language.
  const machine = (field: string, lang: string) =>
    !(humanTranslations?.get(field)?.has(lang) && settings.humanOnlyLanguages.includes(lang));
  const requests = targets.flatMap((lang) =>
    translationRequests(
      changed.filter(({ field }) => machine(field, lang)),
      lang,
    ),
  );
  const reported = new Set(change.fields.map((f) => f.name));
  const removed = stored
    .filter((s) => !reported.has(s.field) && s.sourceVersion <= change.sourceVersion)
    .map((s) => s.field);
  return { writes, requests, stale, unchanged, removed };
}

/** Whether a stored field holds the same text (hash), language and format. */
const sameSource = (a: StoredFieldState, b: Pick<StoredFieldState, 'sourceHash' | 'sourceLang' | 'format'>) =>
  a.sourceHash === b.sourceHash && a.sourceLang === b.sourceLang && a.format === b.format;

/**
 * The configured targets as language codes, without duplicates and without the source language.
 * The admin API validates the list; a code that is still unknown here is left out, not guessed.
 */
function targetLanguages(configured: readonly string[], sourceLang: string): string[] {
  const codes = new Set<string>();
  for (const tag of configured) {
    const code = normaliseLanguageTag(tag);
    if (code && code !== sourceLang) codes.add(code);
  }
  return [...codes];
}
