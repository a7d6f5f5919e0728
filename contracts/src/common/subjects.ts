/** Request/reply subjects: `<service>.<resource>.<verb>`. */
export const Subjects = {
  screener: {
    sharesList: 'screener.shares.list',
    categoriesList: 'screener.categories.list',
    countriesList: 'screener.countries.list',
    assetsGet: 'screener.assets.get',
  },
  portfolios: {
    portfoliosList: 'portfolios.portfolios.list',
    portfoliosCreate: 'portfolios.portfolios.create',
    portfoliosGet: 'portfolios.portfolios.get',
    portfoliosUpdate: 'portfolios.portfolios.update',
    portfoliosDelete: 'portfolios.portfolios.delete',
    dealsList: 'portfolios.deals.list',
    dealsCreate: 'portfolios.deals.create',
    dealsDelete: 'portfolios.deals.delete',
    watchlistsList: 'portfolios.watchlists.list',
    watchlistsCreate: 'portfolios.watchlists.create',
    watchlistsDelete: 'portfolios.watchlists.delete',
    watchlistItemsCreate: 'portfolios.watchlist-items.create',
    watchlistItemsDelete: 'portfolios.watchlist-items.delete',
    statisticsGet: 'portfolios.statistics.get',
    membershipGet: 'portfolios.membership.get',
  },
  billing: {
    plansList: 'billing.plans.list',
    subscriptionGet: 'billing.subscription.get',
    subscribe: 'billing.subscription.subscribe',
    subscriptionSync: 'billing.subscription.sync',
    providerPay: 'billing.provider.pay',
    providerRecurrent: 'billing.provider.recurrent',
    entitlementsGet: 'billing.entitlements.get',
  },
  /** Every service answers `<service>.health.ping` so the gateway can tell it is up. */
  healthPing: (service: string) => `${service}.health.ping`,
} as const;
