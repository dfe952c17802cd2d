export { buildTinyNliModel, tinyNliModelFiles, type TinyNliOptions } from './build-tiny-nli-model.js';
export { CONCEPTS, FILLER_WORDS, type Concept } from './concepts.js';
export { CONTRADICTION_PER_CONCEPT, ENTAILMENT_PER_CONCEPT, NEUTRAL_LOGIT, NLI_LABELS } from './weights.js';
