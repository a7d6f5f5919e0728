import { loadGatewayConfigOrExit } from './config/gateway.config.js';
import { createGatewayApp } from './gateway.app.js';

const config = loadGatewayConfigOrExit();
const gateway = await createGatewayApp(config);
const url = await gateway.listen();
gateway.logger.info({ url, docs: `${url}/api/docs`, readyServices: config.readyServices }, 'gateway listening');

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    if (stopping) return;
    stopping = true;
    gateway.logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      gateway.logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, 10_000);
    force.unref();
    gateway.close().then(
      () => process.exit(0),
      (err: unknown) => {
        gateway.logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
