import 'reflect-metadata';
import { createLogger, exitOnSignals, type MetricsServer, startServiceMetrics } from '@invest/platform';
import { createAlertsApp } from './alerts.app.js';
import { loadAlertsConfigOrExit } from './config/alerts.config.js';

const config = loadAlertsConfigOrExit();
const logger = createLogger('alerts', config.logLevel);

let metrics: MetricsServer;
let service: Awaited<ReturnType<typeof createAlertsApp>>;
try {
  metrics = await startServiceMetrics('alerts', config.metrics, logger);
  service = await createAlertsApp({ ...config, logger });
} catch (err) {
  logger.fatal({ err }, 'alerts service failed to start');
  process.exit(1);
}

exitOnSignals({ name: 'alerts', logger, close: () => service.close().finally(() => metrics.close()), timeoutMs: 15_000 });
