import { createRequire } from 'node:module';

import type { TermEntry } from './term-matcher.js';

/** naughty-words is CommonJS with one JSON list per language; require() reads it without a loader. */
const require = createRequire(import.meta.url);

/** `{en: [...], zh: [...], ...}`: the LDNOOBW lists, keyed by language code. */
export function listTermsByLanguage(): Readonly<Record<string, readonly string[]>> {
  return require('naughty-words') as Record<string, string[]>;
}

/**
 * Every built-in term as a block entry. English comes first, then the other languages alphabetically:
 * a term in several lists (`shit` is also Danish) is reported under the first.
 */
export function listEntries(): TermEntry[] {
  const lists = listTermsByLanguage();
  return Object.keys(lists)
    .sort((a, b) => Number(b === 'en') - Number(a === 'en') || a.localeCompare(b))
    .flatMap((language) =>
      (lists[language] ?? []).map((term): TermEntry => ({ term, kind: 'block', language, source: 'list' })),
    );
}
