export * from './shares.js';
export * from './categories.js';
export * from './countries.js';
