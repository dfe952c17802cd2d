export * from './config.js';
export * from './nli.js';
export type { Classification } from './classify/classify-text.js';
export type { Detection } from './detect/detect-text.js';
export type { RiskLevel } from './detect/verdict.js';
