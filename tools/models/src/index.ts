export * from './tiny-marian/index.js';
export { MODEL_FILES, hubModelFor, type HubModel } from './pull/hub-model.js';
export { PullError, type PullFailure } from './pull/pull-error.js';
export { DEFAULT_HF_ENDPOINT, pullModel, type PullOptions, type PullResult } from './pull/pull-model.js';
