// What other packages may use. The gateway talks to the translator over HTTP, through the contracts
// in @tp/service-contracts.
export * from './config.js';
export * from './translator.js';
