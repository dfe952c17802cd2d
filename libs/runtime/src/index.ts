export * from './config.js';
export * from './errors.js';
export * from './http/index.js';
export * from './logger.js';
export * from './metrics.js';
export * from './readiness.js';
export * from './service.js';
export * from './text.js';
