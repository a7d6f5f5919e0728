import 'reflect-metadata';
import { createLogger, exitOnSignals } from '@invest/platform';
import { loadDeliveryConfigOrExit } from './config/delivery.config.js';
import { createDeliveryApp } from './delivery.app.js';

const config = loadDeliveryConfigOrExit();
const logger = createLogger('delivery', config.logLevel);

let service: Awaited<ReturnType<typeof createDeliveryApp>>;
try {
  service = await createDeliveryApp({ ...config, logger });
} catch (err) {
  logger.fatal({ err }, 'delivery service failed to start');
  process.exit(1);
}

exitOnSignals({ name: 'delivery', logger, close: () => service.close(), timeoutMs: 15_000 });
