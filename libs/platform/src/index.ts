export * from './dependencies.js';
export * from './http-check.js';
export * from './settings.js';
export * from './start-service.js';
export * from './stack-ready.js';
