export * from './glossary-entries.js';
export * from './term-scanner.js';
