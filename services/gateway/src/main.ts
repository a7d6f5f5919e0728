import { createLogger } from '@invest/platform';
import { loadGatewayConfigOrExit } from './config/gateway.config.js';
import { createGatewayApp, type GatewayApp } from './gateway.app.js';

const config = loadGatewayConfigOrExit();
const logger = createLogger('gateway', config.logLevel);

let gateway: GatewayApp;
try {
  gateway = await createGatewayApp({ ...config, logger });
  const url = await gateway.listen();
  logger.info({ url, docs: `${url}/api/docs`, readyServices: config.readyServices, busPrefix: config.busPrefix || undefined }, 'gateway listening');
} catch (err) {
  logger.fatal({ err }, 'gateway failed to start');
  process.exit(1);
}

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'gateway stopping');
    setTimeout(() => {
      logger.error('gateway did not stop within 10 s; exiting');
      process.exit(1);
    }, 10_000).unref();
    gateway.close().then(
      () => {
        logger.info('gateway stopped');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'gateway failed to stop cleanly');
        process.exit(1);
      },
    );
  });
}
