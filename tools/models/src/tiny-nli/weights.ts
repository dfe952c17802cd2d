import type { Concept } from './concepts.js';
import type { NliVocab } from './vocab.js';

/**
 * The output labels by index. Entailment is deliberately not first (the real mDeBERTa has it at 0),
 * so code that assumes a position instead of reading config.json fails against this model.
 */
export const NLI_LABELS = ['contradiction', 'neutral', 'entailment'] as const;

/** Entailment logit per concept named by both premise and hypothesis. */
export const ENTAILMENT_PER_CONCEPT = 5;
/** Contradiction logit per concept the hypothesis names and the premise does not. */
export const CONTRADICTION_PER_CONCEPT = 5;
/** The neutral logit, always: a hypothesis naming no concept ends up neutral. */
export const NEUTRAL_LOGIT = 1;

/** The hand-set weights; nothing is learned. */
export interface NliWeights {
  readonly vocabSize: number;
  readonly conceptCount: number;
  readonly sepId: number;
  /** [vocab, concepts]: the one-hot of the concept a token names (a zero row for other tokens). */
  readonly conceptTable: Float32Array;
  /** [concepts]: 1 for unsafe concepts, 0 for safe ones. */
  readonly unsafeColumns: Float32Array;
  /** [concepts]: 1 for safe concepts, 0 for unsafe ones. */
  readonly safeColumns: Float32Array;
  /** [2, labels]: features (overlap, missing) to logits. */
  readonly head: Float32Array;
  /** [labels] */
  readonly headBias: Float32Array;
}

export function buildNliWeights(vocab: NliVocab, concepts: readonly Concept[]): NliWeights {
  const vocabSize = vocab.tokens.length;
  const conceptCount = concepts.length;
  const conceptTable = new Float32Array(vocabSize * conceptCount);
  vocab.conceptOf.forEach((concept, id) => {
    if (concept >= 0) conceptTable[id * conceptCount + concept] = 1;
  });
  const safeColumns = Float32Array.from(concepts, (concept) => (concept.safe ? 1 : 0));
  const unsafeColumns = Float32Array.from(concepts, (concept) => (concept.safe ? 0 : 1));
  const labels = NLI_LABELS.length;
  const entailment = NLI_LABELS.indexOf('entailment');
  const contradiction = NLI_LABELS.indexOf('contradiction');
  const head = new Float32Array(2 * labels);
  head[0 * labels + entailment] = ENTAILMENT_PER_CONCEPT;
  head[1 * labels + contradiction] = CONTRADICTION_PER_CONCEPT;
  const headBias = new Float32Array(labels);
  headBias[NLI_LABELS.indexOf('neutral')] = NEUTRAL_LOGIT;
  return {
    vocabSize,
    conceptCount,
    sepId: vocab.sepId,
    conceptTable,
    unsafeColumns,
    safeColumns,
    head,
    headBias,
  };
}
