import { createLogger, exitOnSignals, type MetricsServer, startServiceMetrics } from '@invest/platform';
import { loadGatewayConfigOrExit } from './config/gateway.config.js';
import { createGatewayApp, type GatewayApp } from './gateway.app.js';

const config = loadGatewayConfigOrExit();
const logger = createLogger('gateway', config.logLevel);

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

exitOnSignals({ name: 'gateway', logger, close: () => gateway.close().finally(() => metrics.close()) });
