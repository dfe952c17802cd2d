export * from './nli.js';
export * from './translator.js';
