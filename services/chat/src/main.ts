import 'reflect-metadata';
import { createLogger, exitOnSignals } from '@invest/platform';
import { createChatApp } from './chat.app.js';
import { loadChatConfigOrExit } from './config/chat.config.js';

const config = loadChatConfigOrExit();
const logger = createLogger('chat', config.logLevel);

let service: Awaited<ReturnType<typeof createChatApp>>;
try {
  service = await createChatApp({ ...config, logger });
} catch (err) {
  logger.fatal({ err }, 'chat service failed to start');
  process.exit(1);
}

exitOnSignals({ name: 'chat', logger, close: () => service.close(), timeoutMs: 15_000 });
