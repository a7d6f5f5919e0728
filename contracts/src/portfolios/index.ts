export * from './portfolios.contract.js';
export * from './deals.contract.js';
export * from './watchlists.contract.js';
export * from './statistics.contract.js';
export * from './membership.contract.js';
export * from './asset-uses.contract.js';
export * from './holdings.contract.js';
export * from './portfolio-figures.js';
