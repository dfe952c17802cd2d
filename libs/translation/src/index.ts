export * from './hot-cache.js';
export * from './languages/languages.js';
export * from './languages/language-code.js';
export * from './glossary/index.js';
export * from './formats/index.js';
