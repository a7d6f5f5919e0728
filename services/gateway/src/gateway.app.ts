import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { ClientProxyFactory, Transport } from '@nestjs/microservices';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { createLogger, natsClientOptions, PinoNestLogger, RpcClient, type Logger } from '@invest/platform';
import { createJwtVerifier } from './auth/jwt-verifier.js';
import { installRawBodyParsers } from './billing/raw-body.parsers.js';
import { type GatewayConfig, loadGatewayConfig } from './config/gateway.config.js';
import { installRequestContextHooks } from './correlation/request-context.hooks.js';
import { frameworkErrorHandler } from './errors/framework-error.handler.js';
import { setupOpenApi } from './docs/openapi.setup.js';
import { GatewayModule } from './gateway.module.js';
import { ReadinessProbe } from './health/readiness.probe.js';
import { installDecimalReplySerializer } from './http/exact-json.js';

/** Configuration of createGatewayApp: anything left out takes the default of its variable. */
export type GatewayAppOptions = Partial<GatewayConfig> & {
  natsUrl: string;
  /** Defaults to a `gateway` pino logger at `logLevel`. */
  logger?: Logger;
  /** How long close() lets in-flight responses finish before cutting connections (default 5000 ms). */
  shutdownGraceMs?: number;
};

export interface GatewayApp {
  app: NestFastifyApplication;
  config: GatewayConfig;
  logger: Logger;
  rpc: RpcClient;
  /** Starts listening (default: config port/host); resolves to the base URL, e.g. `http://127.0.0.1:41234`. */
  listen(port?: number, host?: string): Promise<string>;
  /** Stops accepting requests, lets in-flight ones finish, closes the NATS connection. Idempotent. */
  close(): Promise<void>;
}

/** Every option's default: the defaults of the environment variables (one source, gateway.config.ts). */
export const gatewayDefaults: GatewayConfig = loadGatewayConfig({});

/**
 * Builds the HTTP gateway (NestJS on Fastify): routes, auth, validation, error shape, correlation,
 * OpenAPI. The app is initialised but not listening; call `listen()`.
 */
export async function createGatewayApp(opts: GatewayAppOptions): Promise<GatewayApp> {
  const { logger: givenLogger, shutdownGraceMs = 5000, ...overrides } = opts;
  const config: GatewayConfig = { ...gatewayDefaults, ...overrides };
  const logger = givenLogger ?? createLogger('gateway', config.logLevel);

  const proxy = ClientProxyFactory.create({ transport: Transport.NATS, options: natsClientOptions(config.natsUrl, 'gateway') });
  const rpc = new RpcClient(proxy, config.rpcTimeoutMs, config.busPrefix);
  const readiness = new ReadinessProbe(rpc, proxy, config.readyServices, config.readyTimeoutMs);
  const verifier = createJwtVerifier(config.auth);

  const adapter = new FastifyAdapter({ logger: false, bodyLimit: config.bodyLimitBytes, frameworkErrors: frameworkErrorHandler(logger) });
  installRequestContextHooks(adapter.getInstance(), logger);
  installDecimalReplySerializer(adapter.getInstance());
  const app = await NestFactory.create<NestFastifyApplication>(
    GatewayModule.register({ config, logger, rpc, verifier, readiness }),
    adapter,
    { logger: new PinoNestLogger(logger), abortOnError: false },
  );
  // JSON bodies: exact decimals (exactJsonBodyParser); provider webhooks: raw bytes.
  installRawBodyParsers(app, config.bodyLimitBytes);
  await setupOpenApi(app);

  // A gateway without NATS still starts: requests answer 503 and /ready says why until NATS is back.
  try {
    await rpc.connect();
  } catch (err) {
    logger.warn({ err, natsUrl: config.natsUrl }, 'NATS not reachable at start; will retry on demand');
  }
  await app.init();

  let closing: Promise<void> | undefined;
  return {
    app,
    config,
    logger,
    rpc,
    async listen(port = config.port, host = config.host) {
      await app.listen({ port, host });
      const address = app.getHttpServer().address();
      const actualPort = typeof address === 'object' && address ? address.port : port;
      const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
      return `http://${shownHost}:${actualPort}`;
    },
    close() {
      closing ??= (async () => {
        // Idle keep-alive connections close at once; a response still streaming (a slow client,
        // later an SSE stream) gets the grace period, then its connection is cut.
        const server = app.getHttpServer();
        const cut = setTimeout(() => server.closeAllConnections(), shutdownGraceMs);
        cut.unref();
        try {
          await app.close();
        } finally {
          clearTimeout(cut);
          await Promise.resolve(rpc.close()).catch((err: unknown) => logger.warn({ err }, 'closing NATS failed'));
        }
      })();
      return closing;
    },
  };
}
