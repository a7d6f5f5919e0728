import 'reflect-metadata';
import { createLogger, loadConfigOrExit, serviceDatabaseUrl } from '@invest/platform';
import { screenerConfigSchema } from './config.js';
import { createScreenerApp } from './screener.app.js';

const config = loadConfigOrExit(screenerConfigSchema, 'screener');
const logger = createLogger('screener', config.LOG_LEVEL);

try {
  const screener = await createScreenerApp({
    databaseUrl: serviceDatabaseUrl('screener'),
    natsUrl: config.NATS_URL,
    busPrefix: config.BUS_PREFIX,
    logger,
    loadDemoData: config.DEMO_DATA,
    marketTz: config.MARKET_TZ,
    providers: config,
    jobs: config.JOBS_ENABLED,
    listCacheTtlMs: config.SCREENER_CACHE_TTL_MS,
  });
  logger.info(
    { busPrefix: config.BUS_PREFIX || undefined, marketTz: config.MARKET_TZ, jobs: config.JOBS_ENABLED, moexIssUrl: config.MOEX_ISS_URL, coingeckoUrl: config.COINGECKO_URL },
    'screener started',
  );

  // Nest's shutdown hooks (enabled by startRpcService) also react to these signals: they close the app and
  // then re-raise the signal. Both paths share one shutdown (NATS first, then jobs, relay and consumer, then
  // the bus and the database, see ScreenerModule); this persistent handler absorbs the re-raised signal so the process ends here, with 0.
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'screener stopping');
    setTimeout(() => {
      logger.error('screener did not stop within 10 s; exiting');
      process.exit(1);
    }, 10_000).unref();
    screener.close().then(
      () => {
        logger.info('screener stopped');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'screener failed to stop cleanly');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
} catch (err) {
  logger.fatal({ err }, 'screener failed to start');
  process.exit(1);
}
