import { type DynamicModule, Module } from '@nestjs/common';
import { createHealthController, type Logger, resourcesShutdownProvider } from '@invest/platform';
import { AssetUsesHandler } from './asset-uses/asset-uses.handler.js';
import type { AssetUsesService } from './asset-uses/asset-uses.service.js';
import { DealsHandler } from './deals/deals.handler.js';
import type { DealService } from './deals/deal.service.js';
import { MembershipHandler } from './membership/membership.handler.js';
import type { MembershipService } from './membership/membership.service.js';
import { PortfoliosHandler } from './portfolios/portfolios.handler.js';
import type { PortfolioService } from './portfolios/portfolio.service.js';
import {
  ASSET_USES_SERVICE,
  DEAL_SERVICE,
  MEMBERSHIP_SERVICE,
  PORTFOLIO_SERVICE,
  PORTFOLIOS_LOGGER,
  STATISTICS_SERVICE,
  WATCHLIST_SERVICE,
} from './portfolios.tokens.js';
import { StatisticsHandler } from './statistics/statistics.handler.js';
import type { StatisticsService } from './statistics/statistics.service.js';
import { WatchlistsHandler } from './watchlists/watchlists.handler.js';
import type { WatchlistService } from './watchlists/watchlist.service.js';

export interface PortfoliosServices {
  logger: Logger;
  /** Stops what runs beside the handlers (relay, consumer, connections); Nest calls it on shutdown. */
  stopResources(): Promise<void>;
  portfolios: PortfolioService;
  deals: DealService;
  watchlists: WatchlistService;
  statistics: StatisticsService;
  membership: MembershipService;
  assetUses: AssetUsesService;
}

/** The NATS handlers of the service, wired to services built (and owned) by createPortfoliosApp. */
@Module({})
export class PortfoliosModule {
  static register(s: PortfoliosServices): DynamicModule {
    return {
      module: PortfoliosModule,
      controllers: [createHealthController('portfolios'), PortfoliosHandler, DealsHandler, WatchlistsHandler, StatisticsHandler, MembershipHandler, AssetUsesHandler],
      providers: [
        { provide: PORTFOLIOS_LOGGER, useValue: s.logger },
        resourcesShutdownProvider(s.stopResources),
        { provide: PORTFOLIO_SERVICE, useValue: s.portfolios },
        { provide: DEAL_SERVICE, useValue: s.deals },
        { provide: WATCHLIST_SERVICE, useValue: s.watchlists },
        { provide: STATISTICS_SERVICE, useValue: s.statistics },
        { provide: MEMBERSHIP_SERVICE, useValue: s.membership },
        { provide: ASSET_USES_SERVICE, useValue: s.assetUses },
      ],
    };
  }
}
