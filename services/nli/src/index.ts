export * from './config.js';
export * from './nli.js';
