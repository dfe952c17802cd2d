import type { Lexicon } from './lexicon.js';

/** SentencePiece's word-boundary mark: a target token `▁hello` decodes to ` hello`. */
export const WORD_MARK = '▁';

export const EOS = '</s>';
export const UNK = '<unk>';
export const PAD = '<pad>';

/**
 * The shared vocabulary of a tiny model, laid out as Marian does: `</s>` is 0, `<unk>` is 1 and `<pad>`
 * (also the decoder start token) is the last id. Source tokens come first, then target tokens.
 */
export interface TinyVocab {
  readonly tokens: readonly string[];
  readonly eosId: number;
  readonly unkId: number;
  readonly padId: number;
  /** For every token id, the target token id the model emits when it reads that token. */
  readonly translation: readonly number[];
}

// not user text: the tiny model's own lexicon
const PUNCTUATION = /^\p{P}+$/u;

/** The target token for a lexicon word: words get the word mark, punctuation stays bare. */
export function targetToken(word: string): string {
  return PUNCTUATION.test(word) ? word : `${WORD_MARK}${word}`;
}

export function buildVocab(lexicon: Lexicon): TinyVocab {
  const ids = new Map<string, number>();
  const add = (token: string) => {
    if (!ids.has(token)) ids.set(token, ids.size);
    return ids.get(token) as number;
  };
  const eosId = add(EOS);
  const unkId = add(UNK);
  for (const [source] of lexicon.entries) {
    if (/\s/.test(source) || source === '')
      throw new Error(`lexicon source token "${source}" is not one token`);
    if (lexicon.lowercase && source !== source.toLowerCase()) {
      throw new Error(`lexicon source "${source}" must be lower case: the tokenizer lower-cases input`);
    }
    if (source.startsWith(WORD_MARK)) throw new Error(`lexicon source "${source}" starts with ${WORD_MARK}`);
    add(source);
  }
  for (const [, word] of lexicon.entries) add(targetToken(word));
  const padId = add(PAD);

  // Everything not read as a listed source word (specials, target-only tokens) translates to <unk>,
  // so the model can only ever say what the lexicon says; </s> ends the output.
  const translation = new Array<number>(ids.size).fill(unkId);
  translation[eosId] = eosId;
  translation[padId] = eosId;
  const seen = new Set<string>();
  for (const [source, word] of lexicon.entries) {
    if (seen.has(source)) throw new Error(`lexicon source "${source}" is listed twice`);
    seen.add(source);
    translation[ids.get(source) as number] = ids.get(targetToken(word)) as number;
  }
  return { tokens: [...ids.keys()], eosId, unkId, padId, translation };
}
