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
  });
  logger.info({ busPrefix: config.BUS_PREFIX || undefined, marketTz: config.MARKET_TZ }, 'screener started');

  const stop = (signal: NodeJS.Signals) => {
    logger.info({ signal }, 'screener stopping');
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
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} catch (err) {
  logger.fatal({ err }, 'screener failed to start');
  process.exit(1);
}
