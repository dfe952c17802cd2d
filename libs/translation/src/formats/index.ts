export { MARKUP_LIMITS, MarkupTooComplexError, type MarkupLimit } from './markup-error.js';
export type { Segmented } from './segmented.js';
export { segmentText, TEXT_FORMATS, type TextFormat } from './text-format.js';
