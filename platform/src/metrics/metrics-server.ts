import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, register } from 'prom-client';
import type { Logger } from '../logging/logger.js';
import { setConsumerHealthDefaults } from './consumer-health.js';

/** What a process is configured with (`metricsSettingsFrom` reads it from the environment). */
export interface MetricsSettings {
  /** `METRICS_PORT`: where GET /metrics is served; unset, no server. */
  port?: number | undefined;
  host: string;
  consumerLagSampleMs: number;
  consumerStuckAfterMs: number;
}

/** The metrics server of a process; `close()` is a no-op when none was started. */
export interface MetricsServer {
  /** The port listened on (the real one when 0 was asked), or undefined when off. */
  port: number | undefined;
  close(): Promise<void>;
}

let defaultMetricsCollected = false;
const EVENT_LOOP_SAMPLE_MS = 50;

/**
 * Serves prom-client's default registry on GET /metrics at `port`. Every metric carries `service`, so one
 * Prometheus job scraping every process tells them apart.
 */
export async function startMetricsServer(opts: { port: number; host?: string; service: string; logger: Logger }): Promise<MetricsServer> {
  const { logger } = opts;
  register.setDefaultLabels({ service: opts.service });
  if (!defaultMetricsCollected) {
    // The event loop delay is sampled every 50 ms, not prom-client's 10: the sampling timer's wake-ups cost about
    // 6 ms of CPU a second at 10 ms (under 2 at 50), a few % of a busy gateway; 20 samples a second still show lag.
    collectDefaultMetrics({ eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    defaultMetricsCollected = true;
  }
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found. Metrics are at GET /metrics.\n');
      return;
    }
    register.metrics().then(
      (text) => res.writeHead(200, { 'content-type': register.contentType }).end(text),
      (err: unknown) => {
        logger.error({ err }, 'metrics: collecting failed');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('Collecting the metrics failed.\n');
      },
    );
  });
  // A scraper keeps its connection open: close() must not wait for it.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  logger.debug({ port }, 'metrics: serving GET /metrics');
  let closed: Promise<void> | undefined;
  return {
    port,
    close: () =>
      (closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      })),
  };
}

/**
 * What a service's main does first: consumer lag sampling and stuck detection take their settings (readiness
 * uses them whether or not metrics are served), and the metrics server starts when a port is set.
 */
export async function startServiceMetrics(service: string, settings: MetricsSettings, logger: Logger): Promise<MetricsServer> {
  setConsumerHealthDefaults({ lagSampleMs: settings.consumerLagSampleMs, stuckAfterMs: settings.consumerStuckAfterMs });
  if (settings.port === undefined) return { port: undefined, close: async () => undefined };
  return startMetricsServer({ port: settings.port, host: settings.host, service, logger });
}
