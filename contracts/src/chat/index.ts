export * from './chat.contract.js';
