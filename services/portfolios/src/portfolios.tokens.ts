/** Dependency-injection tokens of the portfolios service (plain objects built in createPortfoliosApp). */
export const PORTFOLIOS_DB = Symbol('PORTFOLIOS_DB');
export const PORTFOLIOS_LOGGER = Symbol('PORTFOLIOS_LOGGER');
export const PORTFOLIO_SERVICE = Symbol('PORTFOLIO_SERVICE');
export const DEAL_SERVICE = Symbol('DEAL_SERVICE');
export const WATCHLIST_SERVICE = Symbol('WATCHLIST_SERVICE');
export const STATISTICS_SERVICE = Symbol('STATISTICS_SERVICE');
export const MEMBERSHIP_SERVICE = Symbol('MEMBERSHIP_SERVICE');
export const ASSET_USES_SERVICE = Symbol('ASSET_USES_SERVICE');
