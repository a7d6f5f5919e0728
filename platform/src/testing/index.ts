export * from './test-env.js';
export * from './private-nats.js';
