import { createHash } from 'node:crypto';

import { CATALOGUE_PACKAGES, LOCALES, catalogueFiles, ensurePackages, readCatalogue } from './catalogues.js';
import { isSentence, messageLines } from './sentences.js';

export interface CorpusEntry {
  /** Our code of the language the sentence is written in. */
  readonly language: string;
  readonly text: string;
  /** The Debian package whose catalogue it comes from. */
  readonly source: string;
}

export interface Corpus {
  readonly entries: readonly CorpusEntry[];
  /** The packages read, with their versions: the same versions give the same corpus. */
  readonly packages: Readonly<Record<string, string>>;
}

/** language -> package -> sentences. */
type Pool = Map<string, Map<string, Set<string>>>;

/**
 * Reads every catalogue of CATALOGUE_PACKAGES (installing the missing packages), keeps the lines
 * that are sentences of their language (English from the originals), drops a sentence found under
 * two languages, and picks `perLanguage` per language, taking the packages in turn so that no one
 * program's vocabulary dominates. The order within a package is by SHA-256 of the text: the same
 * packages give the same corpus.
 */
export async function buildCorpus(perLanguage: number): Promise<Corpus> {
  const packages = await ensurePackages(CATALOGUE_PACKAGES);
  const pool: Pool = new Map();
  for (const packageName of CATALOGUE_PACKAGES) {
    for (const file of await catalogueFiles(packageName))
      await readInto(pool, file.path, file.locale, packageName);
  }
  const seen = new Map<string, number>();
  for (const byPackage of pool.values()) {
    const texts = new Set([...byPackage.values()].flatMap((set) => [...set]));
    for (const text of texts) seen.set(text, (seen.get(text) ?? 0) + 1);
  }
  const entries = [...pool.keys()]
    .sort()
    .flatMap((language) =>
      pick(pool.get(language) as Map<string, Set<string>>, perLanguage, (text) => seen.get(text) === 1).map(
        ([source, text]) => ({ language, text, source }),
      ),
    );
  return { entries, packages };
}

/**
 * `count` English sentences written by the programs' authors (the msgids of the installed packages of
 * CATALOGUE_PACKAGES, read from each domain's `es` catalogue: every locale holds the same msgids),
 * the packages in turn, in the same fixed order as buildCorpus. Installs nothing.
 */
export async function englishSentences(count: number): Promise<string[]> {
  const byPackage = new Map<string, Set<string>>();
  for (const packageName of CATALOGUE_PACKAGES) {
    const files = await catalogueFiles(packageName).catch(() => []);
    const texts = new Set<string>();
    for (const file of files.filter(({ locale }) => locale === 'es')) {
      for (const message of await readCatalogue(file.path))
        for (const line of message.english.flatMap(messageLines)) if (isSentence(line, 'en')) texts.add(line);
    }
    byPackage.set(packageName, texts);
  }
  return pick(byPackage, count, () => true).map(([, text]) => text);
}

async function readInto(pool: Pool, path: string, locale: string, packageName: string): Promise<void> {
  const language = LOCALES[locale];
  for (const message of await readCatalogue(path)) {
    const english = new Set(message.english.flatMap(messageLines));
    for (const line of english) if (isSentence(line, 'en')) add(pool, 'en', packageName, line);
    if (!language) continue;
    for (const translation of message.translations) {
      for (const line of messageLines(translation)) {
        // A line left as the original is not a sentence of the translation's language.
        if (!english.has(line) && isSentence(line, language)) add(pool, language, packageName, line);
      }
    }
  }
}

function add(pool: Pool, language: string, packageName: string, text: string): void {
  const byPackage = pool.get(language) ?? new Map<string, Set<string>>();
  pool.set(language, byPackage);
  const texts = byPackage.get(packageName) ?? new Set<string>();
  byPackage.set(packageName, texts);
  texts.add(text);
}

/** Up to `count` sentences, one package after the other in turn; [package, text] pairs. */
function pick(byPackage: Map<string, Set<string>>, count: number, keep: (text: string) => boolean) {
  const queues = [...byPackage.keys()].sort().map((name) => ({
    name,
    texts: [...(byPackage.get(name) as Set<string>)]
      .filter(keep)
      .map((text) => ({ text, order: createHash('sha256').update(text).digest('hex') }))
      .sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0))
      .map(({ text }) => text),
  }));
  const picked: [string, string][] = [];
  const taken = new Set<string>();
  for (let round = 0; picked.length < count && queues.some((q) => round < q.texts.length); round += 1) {
    for (const queue of queues) {
      const text = queue.texts[round];
      // A message several programs share (an author's name, a common error) is taken once.
      if (text === undefined || taken.has(text) || picked.length >= count) continue;
      taken.add(text);
      picked.push([queue.name, text]);
    }
  }
  return picked;
}
