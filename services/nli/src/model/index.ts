export { ModelSlot, type ModelSlotOptions, type ModelState } from './model-slot.js';
export { NliModel, TestModelRefusedError, type ModelInfo } from './nli-model.js';
export { parseModelSettings, pickOnnxFile, type ModelSettings } from './model-settings.js';
export { HypothesisTooLongError, PairEncoder, padBatch, type EncodedPair } from './pair-encoder.js';
