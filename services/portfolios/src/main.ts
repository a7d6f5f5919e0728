import 'reflect-metadata';
import { createLogger } from '@invest/platform';
import { loadPortfoliosConfigOrExit } from './config/portfolios.config.js';
import { createPortfoliosApp } from './portfolios.app.js';

const config = loadPortfoliosConfigOrExit();
const logger = createLogger('portfolios', config.logLevel);

let service: Awaited<ReturnType<typeof createPortfoliosApp>>;
try {
  service = await createPortfoliosApp({
    databaseUrl: config.databaseUrl,
    natsUrl: config.natsUrl,
    busPrefix: config.busPrefix,
    logger,
    rpcTimeoutMs: config.rpcTimeoutMs,
    cacheTtl: config.cacheTtl,
  });
} catch (err) {
  logger.fatal({ err }, 'portfolios service failed to start');
  process.exit(1);
}

// Nest's shutdown hooks (enabled by startRpcService) also react to these signals: they close the app (its
// shutdown hook stops the relay, the consumer and the connections) and then re-raise the signal. Both
// paths share one shutdown; this persistent handler absorbs the re-raised signal so the process ends
// here, with 0.
let stopping = false;
const stop = (signal: NodeJS.Signals) => {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'portfolios stopping');
  setTimeout(() => {
    logger.error('portfolios did not stop within 15 s; exiting');
    process.exit(1);
  }, 15_000).unref();
  service.close().then(
    () => {
      logger.info('portfolios stopped');
      process.exit(0);
    },
    (err: unknown) => {
      logger.error({ err }, 'portfolios failed to stop cleanly');
      process.exit(1);
    },
  );
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
