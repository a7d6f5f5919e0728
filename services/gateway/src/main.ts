import { createLogger, exitOnSignals, type MetricsServer, startServiceMetrics } from '@invest/platform';
import { startTracing } from '@invest/platform/tracing/tracing';
import { loadGatewayConfigOrExit } from './config/gateway.config.js';
import { createGatewayApp, type GatewayApp } from './gateway.app.js';

const config = loadGatewayConfigOrExit();
const logger = createLogger('gateway', config.logLevel);
// Spans go out over OTLP only when OTEL_EXPORTER_OTLP_ENDPOINT is set.
const tracing = startTracing('gateway');

let gateway: GatewayApp;
let metrics: MetricsServer;
try {
  metrics = await startServiceMetrics('gateway', config.metrics, logger);
  gateway = await createGatewayApp({ ...config, logger });
  const url = await gateway.listen();
  logger.debug({ url, docs: `${url}/api/docs`, readyServices: config.readyServices, busPrefix: config.busPrefix || undefined }, 'gateway listening');
} catch (err) {
  logger.fatal({ err }, 'gateway failed to start');
  process.exit(1);
}

exitOnSignals({ name: 'gateway', logger, close: () => gateway.close().finally(() => Promise.all([metrics.close(), tracing.shutdown()])) });
