export * from './tiny-marian/index.js';
export * from './tiny-nli/index.js';
export { MODEL_FILES, NLI_MODEL_FILES, hubModelFor, type HubModel } from './pull/hub-model.js';
export { PullError, type PullFailure } from './pull/pull-error.js';
export { DEFAULT_HF_ENDPOINT, pullModel, type PullOptions, type PullResult } from './pull/pull-model.js';
