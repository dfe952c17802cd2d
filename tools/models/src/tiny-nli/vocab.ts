import { FILLER_WORDS, type Concept } from './concepts.js';

export const PAD = '[PAD]';
export const UNK = '[UNK]';
export const CLS = '[CLS]';
export const SEP = '[SEP]';

/** The tiny NLI vocabulary, laid out as BERT's: [PAD] 0, [UNK] 1, [CLS] 2, [SEP] 3, then words. */
export interface NliVocab {
  readonly tokens: readonly string[];
  readonly padId: number;
  readonly unkId: number;
  readonly clsId: number;
  readonly sepId: number;
  /** For every token id, the index of the concept it names, or -1. */
  readonly conceptOf: readonly number[];
}

// not user text: the tiny model's own lexicon
const WORD = /^(?:[a-z]+|\p{Script=Han}|\p{P})$/u;

export function buildNliVocab(concepts: readonly Concept[]): NliVocab {
  const tokens = [PAD, UNK, CLS, SEP];
  const conceptOf = [-1, -1, -1, -1];
  const seen = new Set(tokens);
  const add = (word: string, concept: number) => {
    if (!WORD.test(word)) {
      throw new Error(
        `"${word}" cannot be one token: use lower-case letters, one Han character or punctuation`,
      );
    }
    if (seen.has(word)) throw new Error(`"${word}" is listed twice`);
    seen.add(word);
    tokens.push(word);
    conceptOf.push(concept);
  };
  concepts.forEach((concept, index) => concept.words.forEach((word) => add(word, index)));
  FILLER_WORDS.forEach((word) => add(word, -1));
  return { tokens, padId: 0, unkId: 1, clsId: 2, sepId: 3, conceptOf };
}
