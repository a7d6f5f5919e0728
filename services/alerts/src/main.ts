import 'reflect-metadata';
import { createLogger, exitOnSignals, type MetricsServer, startServiceMetrics } from '@invest/platform';
import { startTracing } from '@invest/platform/tracing/tracing';
import { createAlertsApp } from './alerts.app.js';
import { loadAlertsConfigOrExit } from './config/alerts.config.js';

const config = loadAlertsConfigOrExit();
const logger = createLogger('alerts', config.logLevel);
// Spans go out over OTLP only when OTEL_EXPORTER_OTLP_ENDPOINT is set.
const tracing = startTracing('alerts');

let metrics: MetricsServer;
let service: Awaited<ReturnType<typeof createAlertsApp>>;
try {
  metrics = await startServiceMetrics('alerts', config.metrics, logger);
  service = await createAlertsApp({ ...config, logger });
} catch (err) {
  logger.fatal({ err }, 'alerts service failed to start');
  process.exit(1);
}

exitOnSignals({ name: 'alerts', logger, close: () => service.close().finally(() => Promise.all([metrics.close(), tracing.shutdown()])), timeoutMs: 15_000 });
