/**
 * The glossary part of the DeepL double (after DeepL's v2 glossary API and DeepLcom/deepl-mock):
 * `POST /v2/glossaries` (name, source_lang, target_lang, entries, entries_format tsv|csv) answering
 * 201 with the glossary info, `GET /v2/glossaries[/{id}]`, `GET /v2/glossaries/{id}/entries` (TSV),
 * `DELETE /v2/glossaries/{id}` (204), 404 for an unknown id, and the glossary lookup translate uses.
 */
import { randomUUID } from 'node:crypto';

import { field, type DoubleResponse, type RecordedRequest } from './http-double.js';

/** DeepL's v2 glossary languages (any two of them form a pair). */
const GLOSSARY_LANGUAGES = new Set('DA DE EN ES FR IT JA KO NB NL PL PT RU SV ZH'.split(' '));

export interface DoubleGlossary {
  readonly id: string;
  readonly name: string;
  readonly sourceLang: string;
  readonly targetLang: string;
  readonly entries: readonly (readonly [string, string])[];
  readonly created: Date;
}

const message = (status: number, text: string): DoubleResponse => ({ status, body: { message: text } });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class DeepLGlossaryStore {
  private readonly glossaries = new Map<string, DoubleGlossary>();

  /** Glossaries held now, oldest first. */
  list(): DoubleGlossary[] {
    return [...this.glossaries.values()];
  }

  clear(): void {
    this.glossaries.clear();
  }

  /**
   * The glossary a translate request names, or the error DeepL answers: 400 for a malformed id or a
   * missing source_lang, 404 for an unknown id, 400 when its languages are not the request's.
   */
  forTranslate(
    glossaryId: unknown,
    source: string | undefined,
    target: string,
  ): DoubleGlossary | DoubleResponse | undefined {
    if (glossaryId === undefined) return undefined;
    if (typeof glossaryId !== 'string' || !UUID.test(glossaryId)) {
      return message(400, "Value for 'glossary_id' not supported.");
    }
    if (source === undefined) {
      return message(400, 'Use of a glossary requires the source_lang parameter to be specified');
    }
    const glossary = this.glossaries.get(glossaryId);
    if (!glossary) return message(404, 'Glossary not found');
    if (glossary.sourceLang !== source || glossary.targetLang !== target.split('-')[0]) {
      return message(400, 'Language pair of the glossary does not match the source_lang and target_lang');
    }
    return glossary;
  }

  /** Routes `/v2/glossaries...`; undefined for any other path. */
  handle(request: RecordedRequest): DoubleResponse | undefined {
    if (request.path === '/v2/glossaries') {
      if (request.method === 'POST') return this.create(request.body);
      if (request.method === 'GET') return { status: 200, body: { glossaries: this.list().map(info) } };
      return message(405, 'Method not allowed');
    }
    const match = /^\/v2\/glossaries\/([^/]+)(\/entries)?$/.exec(request.path);
    if (!match) return undefined;
    const glossary = this.glossaries.get(match[1] ?? '');
    if (!glossary) return message(404, 'Glossary not found');
    if (match[2]) {
      const tsv = glossary.entries.map(([from, to]) => `${from}\t${to}`).join('\n');
      return {
        status: 200,
        body: tsv,
        headers: { 'content-type': 'text/tab-separated-values; charset=UTF-8' },
      };
    }
    if (request.method === 'GET') return { status: 200, body: info(glossary) };
    if (request.method === 'DELETE') {
      this.glossaries.delete(glossary.id);
      return { status: 204 };
    }
    return message(405, 'Method not allowed');
  }

  private create(body: unknown): DoubleResponse {
    const name = field(body, 'name');
    const entries = field(body, 'entries');
    const format = field(body, 'entries_format');
    if (typeof name !== 'string' || name === '') return message(400, "Missing or invalid argument: name'");
    const sourceLang = language(field(body, 'source_lang'));
    const targetLang = language(field(body, 'target_lang'));
    if (!sourceLang) return message(400, "Value for 'source_lang' not supported.");
    if (!targetLang) return message(400, "Value for 'target_lang' not supported.");
    if (sourceLang === targetLang)
      return message(400, 'Unsupported glossary source and target language pair');
    if (typeof entries !== 'string') return message(400, "Parameter 'entries' not specified");
    if (format !== 'tsv' && format !== 'csv') return message(400, 'Unsupported entry format specified');
    const parsed = parseEntries(entries, format === 'tsv' ? '\t' : ',');
    if (typeof parsed === 'string') return message(400, parsed);
    const glossary = { id: randomUUID(), name, sourceLang, targetLang, entries: parsed, created: new Date() };
    this.glossaries.set(glossary.id, glossary);
    return { status: 201, body: info(glossary) };
  }
}

/** Replaces each source term of the glossary found in `text` by its target term (longest first). */
export function applyGlossary(text: string, glossary: DoubleGlossary): string {
  const entries = [...glossary.entries].sort(([a], [b]) => b.length - a.length);
  return entries.reduce((out, [from, to]) => out.split(from).join(to), text);
}

/** A glossary language in upper case without a variant (`en-US` -> `EN`), or undefined. */
function language(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const base = value.toUpperCase().split('-')[0] ?? '';
  return GLOSSARY_LANGUAGES.has(base) ? base : undefined;
}

/** Lines of `source<sep>target` (no quoting), or DeepL's message for the first bad line. */
function parseEntries(text: string, separator: string): [string, string][] | string {
  const entries: [string, string][] = [];
  const seen = new Set<string>();
  for (const [index, line] of text.split('\n').entries()) {
    const entry = line.trim();
    if (entry === '') continue;
    const at = entry.indexOf(separator);
    if (at <= 0 || at === entry.length - 1)
      return `Key with the index ${index} misses ${separator === '\t' ? 'tab' : 'comma'} separator`;
    const from = entry.slice(0, at);
    if (seen.has(from)) return `Key with the index ${index} duplicates another key`;
    seen.add(from);
    entries.push([from, entry.slice(at + 1)]);
  }
  return entries.length === 0 ? 'Missing or invalid argument: entries' : entries;
}

function info(glossary: DoubleGlossary): Record<string, unknown> {
  return {
    glossary_id: glossary.id,
    name: glossary.name,
    ready: true,
    source_lang: glossary.sourceLang.toLowerCase(),
    target_lang: glossary.targetLang.toLowerCase(),
    creation_time: glossary.created.toISOString(),
    entry_count: glossary.entries.length,
  };
}
