export * from './hot-cache.js';
export * from './languages/languages.js';
