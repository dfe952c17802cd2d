import type { TinyVocab } from './vocab.js';

/**
 * The hand-set weights. A hidden state has `vocabSize + maxPositions` dimensions: a one-hot of the
 * source token, then a one-hot of its position. Nothing is learned; every matrix is 0 or a constant.
 */
export interface TinyWeights {
  readonly vocabSize: number;
  readonly maxPositions: number;
  readonly dModel: number;
  /** [vocab, d]: token id -> one-hot in the token block. */
  readonly tokenEmbedding: Float32Array;
  /** [positions, d]: position -> one-hot in the position block. */
  readonly positionEmbedding: Float32Array;
  /** [positions, d]: decoder position -> ATTENTION_SCALE times the one-hot of the same position. */
  readonly positionQuery: Float32Array;
  /** [d, vocab]: token block row i -> LOGIT_SCALE at the target token i translates to; position rows 0. */
  readonly lexicon: Float32Array;
}

/**
 * Decoder position t scores ATTENTION_SCALE against source position t and 0 elsewhere, so Softmax
 * puts all but e^-50 of the weight on the matching source token.
 */
export const ATTENTION_SCALE = 50;
/** The chosen target token's logit; every other logit is 0. */
export const LOGIT_SCALE = 10;

/** The producer name in the .onnx files; part of their bytes, so changing it changes the build hash. */
export const TINY_MARIAN_PRODUCER = '@tp/models tiny-marian';

export function buildWeights(vocab: TinyVocab, maxPositions: number): TinyWeights {
  const vocabSize = vocab.tokens.length;
  const dModel = vocabSize + maxPositions;
  const tokenEmbedding = new Float32Array(vocabSize * dModel);
  const positionEmbedding = new Float32Array(maxPositions * dModel);
  const positionQuery = new Float32Array(maxPositions * dModel);
  const lexicon = new Float32Array(dModel * vocabSize);
  for (let id = 0; id < vocabSize; id++) {
    tokenEmbedding[id * dModel + id] = 1;
    lexicon[id * vocabSize + (vocab.translation[id] ?? vocab.unkId)] = LOGIT_SCALE;
  }
  for (let position = 0; position < maxPositions; position++) {
    positionEmbedding[position * dModel + vocabSize + position] = 1;
    positionQuery[position * dModel + vocabSize + position] = ATTENTION_SCALE;
  }
  return { vocabSize, maxPositions, dModel, tokenEmbedding, positionEmbedding, positionQuery, lexicon };
}
