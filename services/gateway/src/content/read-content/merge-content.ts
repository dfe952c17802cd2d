import type { StoredField } from '@tp/pipeline';

/** Where a stored translation comes from, and how good it is (issue #19). */
export interface TranslationMeta {
  readonly origin: 'machine' | 'human';
  /** The engine of a machine translation; null for a human one. */
  readonly engine: string | null;
  /** A human translation made from an older source text. */
  readonly stale: boolean;
  /** Only the start of the text was translated (MyMemory's 500-character cut). */
  readonly truncated: boolean;
  /** A weaker engine answered because a stronger one that serves the pair failed. */
  readonly fallback: boolean;
}

/** One stored source field of an entity, with its current translations. */
export interface TranslatedField extends StoredField {
  /**
   * Translations made from this very text (same source hash), by language code, and human ones made
   * from an older text (stale).
   */
  readonly translations: ReadonlyMap<string, string>;
  /** What is known of each translation, by language code (absent: a machine one, nothing to flag). */
  readonly meta?: ReadonlyMap<string, TranslationMeta>;
}

/** The read meta of one field served from a translation: its language, origin and flags. */
export interface FieldMeta {
  readonly language: string;
  readonly origin: 'machine' | 'human';
  readonly engine: string | null;
  readonly stale?: true;
  readonly truncated?: true;
  readonly fallback?: true;
}

/** What a client reads: the entity's fields in the asked language where they are translated. */
export interface ContentView {
  readonly type: string;
  readonly id: string;
  readonly module: string;
  /** Source language of the latest report. */
  readonly source_lang: string;
  /** The highest source version among the fields. */
  readonly source_version: number;
  /** The language asked for (a code of the list), or the source language without x-language. */
  readonly language: string;
  readonly fields: Readonly<Record<string, string>>;
  /** Fields served in their source text because no current translation exists (yet). */
  readonly untranslated: readonly string[];
  /** Per field served from a translation: where it comes from (answered with `?meta=true`). */
  readonly meta?: Readonly<Record<string, FieldMeta>>;
}

export interface MergedContent {
  readonly view: ContentView;
  /** Languages of the texts in the view, for Content-Language: asked ones first. */
  readonly languages: readonly string[];
  /**
   * Fields not served in the first language asked, or served there by a weak machine translation (a
   * truncated or fallback one): what to request a translation for.
   */
  readonly wanted: readonly TranslatedField[];
}

/**
 * Merges an entity's source fields with their translations. Each field takes the first language of
 * `chain` that it has: its source text when that is the source language, otherwise a translation of
 * the current text. Outdated translations are not in `translations` (the caller matches source
 * hashes), so a changed field shows its new source text until it is translated again. Without a
 * chain the source is asked for, and nothing is untranslated.
 */
export function mergeContent(
  type: string,
  id: string,
  fields: readonly TranslatedField[],
  chain: readonly string[] | undefined,
): MergedContent {
  const sorted = [...fields].sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
  const latest = sorted.reduce((best, f) => (f.sourceVersion > best.sourceVersion ? f : best));
  const texts: Record<string, string> = {};
  const untranslated: string[] = [];
  const wanted: TranslatedField[] = [];
  const served = new Set<string>();
  const meta: Record<string, FieldMeta> = {};
  for (const field of sorted) {
    const found = chain ? pick(field, chain) : { lang: field.sourceLang, text: field.text };
    const about = found && found.lang !== field.sourceLang ? fieldMeta(field, found.lang) : undefined;
    if (about) meta[field.field] = about;
    if (found) {
      texts[field.field] = found.text;
      served.add(found.lang);
    } else {
      texts[field.field] = field.text;
      served.add(field.sourceLang);
      untranslated.push(field.field);
    }
    if (chain && (found?.lang !== chain[0] || about?.truncated || about?.fallback)) wanted.push(field);
  }
  const asked = chain ?? [];
  return {
    view: {
      type,
      id,
      module: latest.module,
      source_lang: latest.sourceLang,
      source_version: latest.sourceVersion,
      language: chain?.[0] ?? latest.sourceLang,
      fields: texts,
      untranslated,
      meta,
    },
    languages: [
      ...asked.filter((lang) => served.has(lang)),
      ...[...served].filter((lang) => !asked.includes(lang)).sort(),
    ],
    wanted,
  };
}

/** The meta of a field served from its translation into `lang`; flags only where they apply. */
function fieldMeta(field: TranslatedField, lang: string): FieldMeta {
  const known = field.meta?.get(lang);
  return {
    language: lang,
    origin: known?.origin ?? 'machine',
    engine: known ? known.engine : null,
    ...(known?.stale ? { stale: true as const } : {}),
    ...(known?.truncated && known.origin === 'machine' ? { truncated: true as const } : {}),
    ...(known?.fallback && known.origin === 'machine' ? { fallback: true as const } : {}),
  };
}

function pick(field: TranslatedField, chain: readonly string[]): { lang: string; text: string } | undefined {
  for (const lang of chain) {
    if (lang === field.sourceLang) return { lang, text: field.text };
    const translated = field.translations.get(lang);
    if (translated !== undefined) return { lang, text: translated };
  }
  return undefined;
}
