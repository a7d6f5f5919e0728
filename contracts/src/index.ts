export * from './common/errors.js';
export * from './common/envelope.js';
export * from './common/paging.js';
export * from './common/subjects.js';
export * from './common/events.js';
