import 'reflect-metadata';
import { createLogger, exitOnSignals, type MetricsServer, startServiceMetrics } from '@invest/platform';
import { startTracing } from '@invest/platform/tracing/tracing';
import { loadPortfoliosConfigOrExit } from './config/portfolios.config.js';
import { createPortfoliosApp } from './portfolios.app.js';

const config = loadPortfoliosConfigOrExit();
const logger = createLogger('portfolios', config.logLevel);
// Spans go out over OTLP only when OTEL_EXPORTER_OTLP_ENDPOINT is set.
const tracing = startTracing('portfolios');

let metrics: MetricsServer;
let service: Awaited<ReturnType<typeof createPortfoliosApp>>;
try {
  metrics = await startServiceMetrics('portfolios', config.metrics, logger);
  service = await createPortfoliosApp({
    databaseUrl: config.databaseUrl,
    natsUrl: config.natsUrl,
    jetstreamReplicas: config.jetstreamReplicas,
    busPrefix: config.busPrefix,
    logger,
    rpcTimeoutMs: config.rpcTimeoutMs,
    cacheTtl: config.cacheTtl,
    limits: config.limits,
  });
} catch (err) {
  logger.fatal({ err }, 'portfolios service failed to start');
  process.exit(1);
}

// Nest's shutdown hooks also react to the signals and re-raise them; exitOnSignals absorbs the repeat.
exitOnSignals({ name: 'portfolios', logger, close: () => service.close().finally(() => Promise.all([metrics.close(), tracing.shutdown()])), timeoutMs: 15_000 });
