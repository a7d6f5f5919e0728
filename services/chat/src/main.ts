import 'reflect-metadata';
import { createLogger, exitOnSignals, type MetricsServer, startServiceMetrics } from '@invest/platform';
import { startTracing } from '@invest/platform/tracing/tracing';
import { createChatApp } from './chat.app.js';
import { loadChatConfigOrExit } from './config/chat.config.js';

const config = loadChatConfigOrExit();
const logger = createLogger('chat', config.logLevel);
// Spans go out over OTLP only when OTEL_EXPORTER_OTLP_ENDPOINT is set.
const tracing = startTracing('chat');

let metrics: MetricsServer;
let service: Awaited<ReturnType<typeof createChatApp>>;
try {
  metrics = await startServiceMetrics('chat', config.metrics, logger);
  service = await createChatApp({ ...config, logger });
} catch (err) {
  logger.fatal({ err }, 'chat service failed to start');
  process.exit(1);
}

exitOnSignals({ name: 'chat', logger, close: () => service.close().finally(() => Promise.all([metrics.close(), tracing.shutdown()])), timeoutMs: 15_000 });
