import { type DynamicModule, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { type Db, createHealthController } from '@invest/platform';
import { GetAssetsHandler } from './assets/get-assets.handler.js';
import { ListCategoriesHandler } from './categories/list-categories.handler.js';
import { ListCountriesHandler } from './countries/list-countries.handler.js';
import { marketToday } from './market-data/market-time.js';
import { MARKET_CLOCK, type MarketClock, SCREENER_DB } from './screener.tokens.js';
import { ListSharesHandler } from './shares/list-shares.handler.js';

export interface ScreenerModuleDeps {
  db: Db;
  marketTz: string;
}

/** Closes the database after the NATS server stopped, whichever way the app is shut down (close() or a signal). */
class DatabaseCloser implements OnApplicationShutdown {
  private closed?: Promise<void>;
  constructor(@Inject(SCREENER_DB) private readonly db: Db) {}
  onApplicationShutdown(): Promise<void> {
    return (this.closed ??= this.db.close());
  }
}

@Module({})
export class ScreenerModule {
  static register(deps: ScreenerModuleDeps): DynamicModule {
    const clock: MarketClock = { timeZone: deps.marketTz, today: () => marketToday(deps.marketTz) };
    return {
      module: ScreenerModule,
      controllers: [ListSharesHandler, ListCategoriesHandler, ListCountriesHandler, GetAssetsHandler, createHealthController('screener')],
      providers: [{ provide: SCREENER_DB, useValue: deps.db }, { provide: MARKET_CLOCK, useValue: clock }, DatabaseCloser],
    };
  }
}
