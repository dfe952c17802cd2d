export * from './config.js';
export * from './translator.js';
