// What other packages may use. The gateway talks to the translator over HTTP; it needs at most the
// types of the API (import them with `import type`, so the engines and models are not loaded).
export * from './config.js';
export * from './translator.js';
export type { Attempt, AttemptOutcome, EngineStatus, SlotName } from './chain/index.js';
export { DEFAULT_SOURCE, translateBody, type TranslateBody } from './translate/translate.routes.js';
export type { TranslationResult } from './translate/translate-text.js';
