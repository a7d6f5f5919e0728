import type { Server } from 'node:http';
import type { Logger } from '@invest/platform';
import type { HttpServerLimits } from '../config/gateway.config.js';

/**
 * Fastify options that stop slow clients (slowloris): headers or a body that arrive too slowly end in a 408
 * (written by the client error handler) and a closed connection; idle keep-alive connections close.
 */
export function slowClientOptions(limits: HttpServerLimits) {
  return {
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      // Node checks both timeouts on this interval (default 30 s, which would stretch a short timeout).
      connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
    },
  };
}

/** Caps open connections: Node closes those beyond the cap as they arrive; one warning per 100 dropped. */
export function capConnections(server: Server, limits: HttpServerLimits, logger: Logger): void {
  server.maxConnections = limits.maxConnections;
  let dropped = 0;
  server.on('drop', (info?: { remoteAddress?: string }) => {
    // A flood must not flood the log too.
    if (dropped++ % 100 === 0) logger.warn({ maxConnections: limits.maxConnections, remoteAddress: info?.remoteAddress, dropped }, 'connection limit reached; connections dropped');
  });
}
