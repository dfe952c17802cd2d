/**
 * A glossary's entries as DeepL takes them (`POST /v2/glossaries`, `entries_format` csv or tsv): one
 * `source,target` pair a line, each term trimmed, no empty term, no source term twice, no tab, line
 * break or other control character inside a term. Our own limits keep the term scanner's work per
 * character small and a glossary cheap to load: see GLOSSARY_LIMITS.
 */

import { AppError, codePoints } from '@tp/runtime';

export interface GlossaryEntry {
  readonly source: string;
  readonly target: string;
}

export const GLOSSARY_LIMITS = {
  /** Entries of one glossary. */
  maxEntries: 5000,
  /** UTF-8 bytes of all terms together (the CSV text when imported). */
  maxBytes: 256 * 1024,
  /**
   * Characters (code points, as every text limit counts) of one term: the term scanner's work per
   * character is at most twice this (it walks UTF-16 units).
   */
  maxTermLength: 200,
} as const;

export type EntriesFormat = 'csv' | 'tsv';

export interface EntryIssue {
  /** 1-based line of the CSV/TSV text, or 1-based item of a list. */
  readonly line: number;
  readonly message: string;
}

// C0 and C1 controls, and the line and paragraph separators: DeepL refuses them inside terms.
const isControl = (code: number) =>
  code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;

function termProblem(term: string, side: 'source' | 'target'): string | undefined {
  if (term === '') return `the ${side} term is empty`;
  if (term.length > GLOSSARY_LIMITS.maxTermLength && codePoints(term) > GLOSSARY_LIMITS.maxTermLength) {
    return `the ${side} term is longer than ${GLOSSARY_LIMITS.maxTermLength} characters`;
  }
  for (let i = 0; i < term.length; i += 1) {
    if (isControl(term.charCodeAt(i)))
      return `the ${side} term contains a tab, line break or control character`;
  }
  return undefined;
}

/**
 * Checks and tidies a list of entries: terms trimmed and NFC-normalised, every problem reported
 * (GLOSSARY_ENTRIES_INVALID), then the limits (GLOSSARY_TOO_LARGE).
 */
export function checkEntries(raw: readonly GlossaryEntry[]): GlossaryEntry[] {
  if (raw.length > GLOSSARY_LIMITS.maxEntries)
    throw tooLarge('entries', raw.length, GLOSSARY_LIMITS.maxEntries);
  const issues: EntryIssue[] = [];
  const seen = new Map<string, number>();
  const entries: GlossaryEntry[] = [];
  let bytes = 0;
  raw.forEach((entry, index) => {
    const line = index + 1;
    const source = entry.source.trim().normalize('NFC');
    const target = entry.target.trim().normalize('NFC');
    const problem = termProblem(source, 'source') ?? termProblem(target, 'target');
    if (problem) {
      issues.push({ line, message: problem });
      return;
    }
    const earlier = seen.get(source);
    if (earlier !== undefined) {
      issues.push({
        line,
        message: `the source term ${JSON.stringify(source)} is already on line ${earlier}`,
      });
      return;
    }
    seen.set(source, line);
    bytes += Buffer.byteLength(source) + Buffer.byteLength(target) + 2;
    entries.push({ source, target });
  });
  if (issues.length > 0) throw invalid(issues);
  if (entries.length === 0) throw invalid([{ line: 1, message: 'a glossary needs at least one entry' }]);
  if (bytes > GLOSSARY_LIMITS.maxBytes) throw tooLarge('bytes', bytes, GLOSSARY_LIMITS.maxBytes);
  return entries;
}

/** Reads CSV (RFC 4180 quoting) or TSV text into entries, then checks them like checkEntries. */
export function parseEntries(text: string, format: EntriesFormat): GlossaryEntry[] {
  const bytes = Buffer.byteLength(text);
  if (bytes > GLOSSARY_LIMITS.maxBytes) throw tooLarge('bytes', bytes, GLOSSARY_LIMITS.maxBytes);
  const rows = format === 'csv' ? readCsv(text) : readTsv(text);
  const issues = rows.flatMap((row) =>
    row.error || row.fields.length === 2
      ? []
      : [{ line: row.line, message: `expected 2 fields (source,target), found ${row.fields.length}` }],
  );
  if (rows.length > GLOSSARY_LIMITS.maxEntries) {
    throw tooLarge('entries', rows.length, GLOSSARY_LIMITS.maxEntries);
  }
  const malformed = rows.flatMap((row) => (row.error ? [{ line: row.line, message: row.error }] : []));
  if (malformed.length + issues.length > 0)
    throw invalid([...malformed, ...issues].sort((a, b) => a.line - b.line));
  try {
    return checkEntries(
      rows.map(({ fields }) => ({ source: fields[0] as string, target: fields[1] as string })),
    );
  } catch (err) {
    // checkEntries numbers entries; in a text the line numbers are what the admin sees.
    if (err instanceof AppError && err.code === 'GLOSSARY_ENTRIES_INVALID') {
      const { issues: found } = err.details as { issues: EntryIssue[] };
      throw invalid(found.map((issue) => ({ ...issue, line: rows[issue.line - 1]?.line ?? issue.line })));
    }
    throw err;
  }
}

/** Entries as TSV, one a line: what DeepL's glossary API takes. */
export const entriesToTsv = (entries: readonly GlossaryEntry[]): string =>
  entries.map(({ source, target }) => `${source}\t${target}`).join('\n');

interface Row {
  readonly line: number;
  readonly fields: string[];
  readonly error?: string;
}

function readTsv(text: string): Row[] {
  const rows: Row[] = [];
  text.split('\n').forEach((raw, index) => {
    const content = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (content.trim() !== '') rows.push({ line: index + 1, fields: content.split('\t') });
  });
  return rows;
}

/** One pass over the text (RFC 4180): quoted fields may hold commas, quotes (doubled) and line breaks. */
function readCsv(text: string): Row[] {
  const rows: Row[] = [];
  let fields: string[] = [];
  let field = '';
  let line = 1;
  let rowLine = 1;
  let i = 0;
  let error: string | undefined;
  const endRow = () => {
    fields.push(field);
    const blank = fields.length === 1 && fields[0]?.trim() === '';
    if (!blank || error) rows.push({ line: rowLine, fields, ...(error ? { error } : {}) });
    fields = [];
    field = '';
    error = undefined;
  };
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === '"' && field.trim() === '') {
      const close = quotedEnd(text, i + 1);
      if (close < 0) {
        error = 'a quoted field is not closed';
        field = text.slice(i + 1);
        break;
      }
      const quoted = text.slice(i + 1, close).replaceAll('""', '"');
      for (const c of quoted) if (c === '\n') line += 1;
      field = quoted;
      i = close + 1;
      while (text[i] === ' ' || text[i] === '\t') i += 1;
      const next = text[i];
      if (next !== undefined && next !== ',' && next !== '\n' && next !== '\r') {
        error ??= 'text after a closing quote';
      }
      continue;
    }
    if (ch === ',') {
      fields.push(field);
      field = '';
    } else if (ch === '\n') {
      endRow();
      line += 1;
      rowLine = line;
    } else if (ch !== '\r' || text[i + 1] !== '\n') {
      if (ch === '"') error ??= 'a quote inside an unquoted field';
      field += ch;
    }
    i += 1;
  }
  if (field !== '' || fields.length > 0 || error) endRow();
  return rows;
}

/** Index of the quote closing a field opened just before `from`; -1 when there is none. */
function quotedEnd(text: string, from: number): number {
  let i = from;
  for (;;) {
    const quote = text.indexOf('"', i);
    if (quote < 0) return -1;
    if (text[quote + 1] !== '"') return quote;
    i = quote + 2;
  }
}

const invalid = (issues: readonly EntryIssue[]) =>
  new AppError(
    'GLOSSARY_ENTRIES_INVALID',
    `the glossary entries are invalid: ${issues.length} problem(s), the first on line ${issues[0]?.line}: ${issues[0]?.message}`,
    { issues: issues.slice(0, 100) },
  );

const tooLarge = (what: 'entries' | 'bytes', actual: number, limit: number) =>
  new AppError(
    'GLOSSARY_TOO_LARGE',
    what === 'entries'
      ? `a glossary holds at most ${limit} entries; this one has ${actual}`
      : `a glossary's terms take at most ${limit} bytes of UTF-8; these take ${actual}`,
    { limit, actual, unit: what },
  );
