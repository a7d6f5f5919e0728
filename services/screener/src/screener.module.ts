import { type DynamicModule, Module } from '@nestjs/common';
import type { ListSharesReply } from '@invest/contracts';
import { type CoalescingCache, type Db, createHealthController, resourcesShutdownProvider } from '@invest/platform';
import { GetAssetsHandler } from './assets/get-assets.handler.js';
import { ListCategoriesHandler } from './categories/list-categories.handler.js';
import { ListCountriesHandler } from './countries/list-countries.handler.js';
import { CustomAssetsHandler } from './custom-assets/custom-assets.handler.js';
import type { CustomAssetsService } from './custom-assets/custom-assets.service.js';
import { marketToday } from './market-data/market-time.js';
import { CUSTOM_ASSETS, LIST_SHARES_CACHE, MARKET_CLOCK, type MarketClock, SCREENER_DB } from './screener.tokens.js';
import { ListSharesHandler } from './shares/list-shares.handler.js';

export interface ScreenerModuleDeps {
  db: Db;
  marketTz: string;
  /**
   * Stops what runs beside the handlers (jobs, relay, consumer) and closes the bus and the database. Called
   * once the NATS server has stopped, whichever way the app is shut down (close() or a signal).
   */
  stopResources: () => Promise<void>;
  /** The screener page cache (identical concurrent requests share one query; pages kept for its TTL), cleared when market data change. */
  listCache: CoalescingCache<ListSharesReply>;
  /** The custom assets' use cases (built by the app: a deletion asks portfolios over NATS). */
  customAssets: CustomAssetsService;
}

@Module({})
export class ScreenerModule {
  static register(deps: ScreenerModuleDeps): DynamicModule {
    const clock: MarketClock = { timeZone: deps.marketTz, today: () => marketToday(deps.marketTz) };
    return {
      module: ScreenerModule,
      controllers: [ListSharesHandler, ListCategoriesHandler, ListCountriesHandler, GetAssetsHandler, CustomAssetsHandler, createHealthController('screener')],
      providers: [
        { provide: SCREENER_DB, useValue: deps.db },
        { provide: MARKET_CLOCK, useValue: clock },
        { provide: LIST_SHARES_CACHE, useValue: deps.listCache },
        { provide: CUSTOM_ASSETS, useValue: deps.customAssets },
        resourcesShutdownProvider(deps.stopResources),
      ],
    };
  }
}
