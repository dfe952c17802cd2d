import type { Orm } from '@tp/db';
import { machineTranslatedSources, type StoredField, type TranslatedSource } from '@tp/pipeline';
import type { Logger } from '@tp/runtime';
import { TermScanner, type GlossaryEntry } from '@tp/translation';

/** Requests fields in a language through the outbox, throttled (the read path's TranslationRequests). */
export interface FieldRequests {
  request(
    type: string,
    fields: readonly StoredField[],
    targetLang: string,
    correlationId: string,
  ): Promise<number>;
}

/** A glossary write: the pair, the state it left, and the entries before and after (none when absent). */
export interface GlossaryEdit {
  readonly sourceLang: string;
  readonly targetLang: string;
  /**
   * The pair's glossary state after the write: its new version, or `deleted-<version>` after a delete.
   * A field is requested at most once per state (the throttle's key), so each write gets its own.
   */
  readonly state: string;
  readonly before: readonly GlossaryEntry[];
  readonly after: readonly GlossaryEntry[];
}

/**
 * Bounds of one edit's sweep: stored translations are read in batches of `batchRows` (keyset on id),
 * at most `maxScannedRows` of them, and at most `maxRequested` fields are requested again.
 */
export const GLOSSARY_RETRANSLATION_LIMITS = { batchRows: 500, maxScannedRows: 20_000, maxRequested: 2_000 };

/**
 * After a glossary write, requests again the machine translations of the pair whose current source
 * text contains a source term the write added, removed or gave another target (whole word, as the
 * translator matches). Bounded per edit (GLOSSARY_RETRANSLATION_LIMITS) and throttled per field by
 * `requestsFor(state)`; human translations are left alone. Failures are logged, never the edit's.
 */
export class GlossaryRetranslation {
  constructor(
    private readonly orm: Orm,
    private readonly requestsFor: (state: string) => FieldRequests,
    private readonly logger?: Logger,
    private readonly limits = GLOSSARY_RETRANSLATION_LIMITS,
  ) {}

  /** How many fields were requested again. */
  async afterEdit(edit: GlossaryEdit, correlationId: string): Promise<number> {
    const terms = changedTerms(edit.before, edit.after);
    if (terms.length === 0) return 0;
    try {
      return await this.sweep(edit, new TermScanner(terms), correlationId);
    } catch (err) {
      this.logger?.warn(
        { err, pair: `${edit.sourceLang}->${edit.targetLang}` },
        'glossary retranslation failed',
      );
      return 0;
    }
  }

  private async sweep(edit: GlossaryEdit, scanner: TermScanner, correlationId: string): Promise<number> {
    const requests = this.requestsFor(edit.state);
    const { batchRows, maxScannedRows, maxRequested } = this.limits;
    let requested = 0;
    let after = '0';
    for (let scanned = 0; scanned < maxScannedRows && requested < maxRequested;) {
      const rows = await this.batch(edit, after, Math.min(batchRows, maxScannedRows - scanned));
      if (rows.length === 0) break;
      scanned += rows.length;
      after = rows[rows.length - 1]?.translationId ?? after;
      const hits = rows.filter((row) => scanner.find(row.text).length > 0).slice(0, maxRequested - requested);
      for (const [type, fields] of byType(hits)) {
        requested += await requests.request(type, fields, edit.targetLang, correlationId);
      }
    }
    return requested;
  }

  /** Machine translations of the pair made from the field's current source text, after id `after`. */
  private batch(edit: GlossaryEdit, after: string, limit: number): Promise<TranslatedSource[]> {
    return machineTranslatedSources(this.orm.em.fork(), edit, after, limit);
  }
}

/** Source terms whose entry is new, gone, or maps to another target now. */
export function changedTerms(before: readonly GlossaryEntry[], after: readonly GlossaryEntry[]): string[] {
  const old = new Map(before.map((entry) => [entry.source, entry.target]));
  const now = new Map(after.map((entry) => [entry.source, entry.target]));
  const changed = new Set<string>();
  for (const [source, target] of now) if (old.get(source) !== target) changed.add(source);
  for (const source of old.keys()) if (!now.has(source)) changed.add(source);
  return [...changed];
}

function byType(fields: readonly StoredField[]): Map<string, StoredField[]> {
  const groups = new Map<string, StoredField[]>();
  for (const field of fields) groups.set(field.entityType, [...(groups.get(field.entityType) ?? []), field]);
  return groups;
}
