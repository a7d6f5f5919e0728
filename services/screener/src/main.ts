import 'reflect-metadata';
import { createLogger, exitOnSignals, loadConfigOrExit, metricsSettingsFrom, serviceDatabaseUrl, startServiceMetrics } from '@invest/platform';
import { startTracing } from '@invest/platform/tracing/tracing';
import { screenerConfigSchema } from './config.js';
import { createScreenerApp } from './screener.app.js';

const config = loadConfigOrExit(screenerConfigSchema, 'screener');
const logger = createLogger('screener', config.LOG_LEVEL);
// Spans go out over OTLP only when OTEL_EXPORTER_OTLP_ENDPOINT is set.
const tracing = startTracing('screener');

try {
  const metrics = await startServiceMetrics('screener', metricsSettingsFrom(config), logger);
  const screener = await createScreenerApp({
    databaseUrl: serviceDatabaseUrl('screener'),
    natsUrl: config.NATS_URL,
    jetstreamReplicas: config.JETSTREAM_REPLICAS,
    busPrefix: config.BUS_PREFIX,
    logger,
    loadDemoData: config.DEMO_DATA,
    marketTz: config.MARKET_TZ,
    providers: config,
    jobs: config.JOBS_ENABLED,
    listCacheTtlMs: config.SCREENER_CACHE_TTL_MS,
    customAssetsMaxPerUser: config.CUSTOM_ASSETS_MAX_PER_USER,
  });
  logger.debug(
    { busPrefix: config.BUS_PREFIX || undefined, marketTz: config.MARKET_TZ, jobs: config.JOBS_ENABLED, moexIssUrl: config.MOEX_ISS_URL, coingeckoUrl: config.COINGECKO_URL },
    'screener started',
  );

  // Nest's shutdown hooks also react to the signals (closing NATS first, then jobs, relay and consumer, then
  // the bus and the database, see createScreenerApp) and re-raise them; exitOnSignals absorbs the repeat.
  exitOnSignals({ name: 'screener', logger, close: () => screener.close().finally(() => Promise.all([metrics.close(), tracing.shutdown()])) });
} catch (err) {
  logger.fatal({ err }, 'screener failed to start');
  process.exit(1);
}
