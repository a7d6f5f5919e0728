export * from './test-env.js';
export * from './private-nats.js';
export * from './use-test-database.js';
export * from './run-source-main.js';
export * from './decider-specification.js';
export * from './nats-cluster.js';
export * from './held-transaction.js';
export * from './eventually.js';
