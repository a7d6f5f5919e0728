import 'reflect-metadata';
import type { INestMicroservice } from '@nestjs/common';
import { type Db, type Logger, createLogger, openDatabase, startRpcService } from '@invest/platform';
import { loadDemoData } from './demo-data/demo-data.loader.js';
import { marketToday } from './market-data/market-time.js';
import { migrations } from './migrations/index.js';
import { ScreenerModule } from './screener.module.js';

export interface ScreenerAppOptions {
  databaseUrl: string;
  natsUrl: string;
  /** Prefix of every NATS subject (`BUS_PREFIX`); tests use a unique one. */
  busPrefix?: string;
  logger?: Logger;
  /** Load the demo shares and dividends on first start (default true). */
  loadDemoData?: boolean;
  /** Time zone of the market day (dividend window, demo dividend dates). Default Europe/Moscow. */
  marketTz?: string;
}

export interface ScreenerApp {
  app: INestMicroservice;
  db: Db;
  /** Stops answering on NATS, then closes the database. Safe to call more than once. */
  close(): Promise<void>;
}

/**
 * Opens the screener database (creating it and running migrations), loads the demo data once if asked,
 * and starts the NATS handlers. Used by `main.ts` and by tests.
 */
export async function createScreenerApp(opts: ScreenerAppOptions): Promise<ScreenerApp> {
  const logger = opts.logger ?? createLogger('screener');
  const marketTz = opts.marketTz ?? 'Europe/Moscow';
  const db = await openDatabase({ url: opts.databaseUrl, migrations, logger });
  let app: INestMicroservice;
  try {
    if (opts.loadDemoData ?? true) await loadDemoData(db, { today: marketToday(marketTz), logger });
    app = await startRpcService(ScreenerModule.register({ db, marketTz }), {
      name: 'screener',
      natsUrl: opts.natsUrl,
      logger,
      busPrefix: opts.busPrefix ?? '',
    });
  } catch (err) {
    await db.close();
    throw err;
  }
  let closing: Promise<void> | undefined;
  return {
    app,
    db,
    close: () => (closing ??= app.close()),
  };
}
