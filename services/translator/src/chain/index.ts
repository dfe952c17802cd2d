export * from './all-engines-failed.error.js';
export * from './attempt.js';
export * from './chain.js';
export * from './pair-directory.js';
export * from './served-pairs.js';
export * from './unsupported-pair.error.js';
export { checkOutput, UNCHANGED, type OutputCheckInput } from './output-checks.js';
export {
  mask,
  restore,
  withoutProtectedSpans,
  type MaskedText,
  type RestoredText,
} from './protected-spans.js';
export * from './resilience.js';
export { splitSentences, splitText } from './splitter.js';
export type { ChainGlossary } from './translate-with-engine.js';
export * from './engines-check.js';
