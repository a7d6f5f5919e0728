/** Request/reply subjects: `<service>.<resource>.<verb>`. */
export const Subjects = {
  screener: {
    sharesList: 'screener.shares.list',
    categoriesList: 'screener.categories.list',
    countriesList: 'screener.countries.list',
    assetsGet: 'screener.assets.get',
    /** Assets of every type by ticker, name or ISIN, best match first (custom assets: the user's own). */
    assetsSearch: 'screener.assets.search',
    /** Daily closes of some assets over a date range (a held asset without any is backfilled from MOEX ISS). */
    closesGet: 'screener.closes.get',
    /** Dividends of some assets with a record date today or later. */
    dividendsGet: 'screener.dividends.get',
    /** One market asset by type and ticker: key figures and dividends (the public asset page). */
    assetPage: 'screener.assets.page',
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
    holdingsGet: 'portfolios.holdings.get',
    historyGet: 'portfolios.history.get',
    dividendsGet: 'portfolios.dividends.get',
    membershipGet: 'portfolios.membership.get',
    assetUsesGet: 'portfolios.asset-uses.get',
  },
  billing: {
    plansList: 'billing.plans.list',
    subscriptionGet: 'billing.subscription.get',
    subscribe: 'billing.subscription.subscribe',
    subscriptionSync: 'billing.subscription.sync',
    paymentsList: 'billing.payments.list',
    providerPay: 'billing.provider.pay',
    providerRecurrent: 'billing.provider.recurrent',
    entitlementsGet: 'billing.entitlements.get',
  },
  alerts: {
    priceAlertsCreate: 'alerts.price-alerts.create',
    priceChangeAlertsCreate: 'alerts.price-change-alerts.create',
    notificationsList: 'alerts.notifications.list',
    notificationsSwitch: 'alerts.notifications.switch',
    notificationsDelete: 'alerts.notifications.delete',
    /** Internal: which of the given firings may still be delivered (delivery asks before sending). */
    firingsDeliverable: 'alerts.firings.deliverable',
    notificationEventsList: 'alerts.notification-events.list',
    notificationEventsMarkRead: 'alerts.notification-events.mark-read',
  },
  chat: {
    chatsCreate: 'chat.chats.create',
    chatsList: 'chat.chats.list',
    chatsGet: 'chat.chats.get',
    chatsUpdate: 'chat.chats.update',
    chatsDelete: 'chat.chats.delete',
    messagesSend: 'chat.messages.send',
    messagesGet: 'chat.messages.get',
    messagesStop: 'chat.messages.stop',
    messagesRate: 'chat.messages.rate',
    limitsGet: 'chat.limits.get',
  },
  /** Every service answers `<service>.health.ping` so the gateway can tell it is up. */
  healthPing: (service: string) => `${service}.health.ping`,
} as const;
