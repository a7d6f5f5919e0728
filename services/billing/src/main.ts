import 'reflect-metadata';
import { createLogger, exitOnSignals, type MetricsServer, startServiceMetrics } from '@invest/platform';
import { startTracing } from '@invest/platform/tracing/tracing';
import { createBillingApp } from './billing.app.js';
import { DEV_CLOUDPAYMENTS_SECRET, loadBillingConfigOrExit } from './config/billing.config.js';

const config = loadBillingConfigOrExit();
const logger = createLogger('billing', config.logLevel);
// Spans go out over OTLP only when OTEL_EXPORTER_OTLP_ENDPOINT is set.
const tracing = startTracing('billing');
if (config.cloudPayments.apiSecret === DEV_CLOUDPAYMENTS_SECRET) logger.warn('billing: CLOUDPAYMENTS_API_SECRET is not set; using the development secret (never in production)');

let metrics: MetricsServer;
let service: Awaited<ReturnType<typeof createBillingApp>>;
try {
  metrics = await startServiceMetrics('billing', config.metrics, logger);
  service = await createBillingApp({ ...config, logger });
} catch (err) {
  logger.fatal({ err }, 'billing service failed to start');
  process.exit(1);
}

exitOnSignals({ name: 'billing', logger, close: () => service.close().finally(() => Promise.all([metrics.close(), tracing.shutdown()])), timeoutMs: 15_000 });
