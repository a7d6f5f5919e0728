import 'reflect-metadata';
import { createLogger, exitOnSignals, type MetricsServer, startServiceMetrics } from '@invest/platform';
import { startTracing } from '@invest/platform/tracing/tracing';
import { loadDeliveryConfigOrExit } from './config/delivery.config.js';
import { createDeliveryApp } from './delivery.app.js';

const config = loadDeliveryConfigOrExit();
const logger = createLogger('delivery', config.logLevel);
// Spans go out over OTLP only when OTEL_EXPORTER_OTLP_ENDPOINT is set.
const tracing = startTracing('delivery');

let metrics: MetricsServer;
let service: Awaited<ReturnType<typeof createDeliveryApp>>;
try {
  metrics = await startServiceMetrics('delivery', config.metrics, logger);
  service = await createDeliveryApp({ ...config, logger });
} catch (err) {
  logger.fatal({ err }, 'delivery service failed to start');
  process.exit(1);
}

exitOnSignals({ name: 'delivery', logger, close: () => service.close().finally(() => Promise.all([metrics.close(), tracing.shutdown()])), timeoutMs: 15_000 });
