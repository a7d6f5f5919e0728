import 'reflect-metadata';
import { createLogger, exitOnSignals, type MetricsServer, startServiceMetrics } from '@invest/platform';
import { loadDeliveryConfigOrExit } from './config/delivery.config.js';
import { createDeliveryApp } from './delivery.app.js';

const config = loadDeliveryConfigOrExit();
const logger = createLogger('delivery', config.logLevel);

let metrics: MetricsServer;
let service: Awaited<ReturnType<typeof createDeliveryApp>>;
try {
  metrics = await startServiceMetrics('delivery', config.metrics, logger);
  service = await createDeliveryApp({ ...config, logger });
} catch (err) {
  logger.fatal({ err }, 'delivery service failed to start');
  process.exit(1);
}

exitOnSignals({ name: 'delivery', logger, close: () => service.close().finally(() => metrics.close()), timeoutMs: 15_000 });
