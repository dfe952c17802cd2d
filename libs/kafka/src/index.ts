export * from './consumer-health.js';
export * from './kafka-client.js';
export * from './kafka-consumer.js';
export * from './kafka-producer.js';
export * from './port.js';
export * from './topics.js';
export * from './outgoing-batch.js';
