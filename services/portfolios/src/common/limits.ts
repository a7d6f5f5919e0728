/** How much one user may create (quota validations: 422 when reached). */
export interface PortfoliosLimits {
  /** `PORTFOLIOS_MAX_PER_USER` */
  portfoliosPerUser: number;
  /** `DEALS_MAX_PER_PORTFOLIO` */
  dealsPerPortfolio: number;
  /** `WATCHLISTS_MAX_PER_USER` */
  watchlistsPerUser: number;
  /** `WATCHLIST_ITEMS_MAX` */
  itemsPerWatchlist: number;
}

export const DEFAULT_LIMITS: PortfoliosLimits = {
  portfoliosPerUser: 50,
  // The statistics benchmark portfolio has 10,000 deals; twice that leaves room for a long-lived active account.
  dealsPerPortfolio: 20_000,
  watchlistsPerUser: 50,
  itemsPerWatchlist: 500,
};
