export * from './app.js';
export * from './errors.js';
export * from './request-log.js';
export * from './request-tracking.js';
export * from './server.js';
export * from './client-gone.js';
