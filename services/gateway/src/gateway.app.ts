import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { ClientProxyFactory, Transport } from '@nestjs/microservices';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { createLogger, natsConnectionOptions, PinoNestLogger, RpcClient, type Logger, serviceModule } from '@invest/platform';
import { createNotificationEventsController } from './alerts/notification-events.controller.js';
import { NotificationFeed } from './alerts/notification-feed.js';
import { createNotificationsController } from './alerts/notifications.controller.js';
import { JwtAuthGuard } from './auth/jwt-auth.guard.js';
import { createJwtVerifier } from './auth/jwt-verifier.js';
import { createProviderWebhooksController, RAW_BODY_PATH_PREFIX } from './billing/provider-webhooks.controller.js';
import { installRawBodyParsers } from './billing/raw-body.parsers.js';
import { createSubscriptionsController } from './billing/subscriptions.controller.js';
import { createChatMessagesController } from './chat/chat-messages.controller.js';
import { ChatStreamReader } from './chat/chat-stream.reader.js';
import { createChatsController } from './chat/chats.controller.js';
import { DEV_JWT_SECRET, type GatewayConfig, loadGatewayConfig } from './config/gateway.config.js';
import { installRequestContextHooks, installRequestSpanHook } from './correlation/request-context.hooks.js';
import { createCustomAssetsController } from './custom-assets/custom-assets.controller.js';
import { createEmailController, installOneClickFormParser } from './delivery/email.controller.js';
import { createNotificationSettingsController } from './delivery/notification-settings.controller.js';
import { createPushSubscriptionsController } from './delivery/push-subscriptions.controller.js';
import { createTelegramController } from './delivery/telegram.controller.js';
import { createClientConfigController, createDevController } from './dev/dev.controller.js';
import { answerUnmetExpectations, clientErrorHandler } from './errors/client-error.handler.js';
import { frameworkErrorHandler } from './errors/framework-error.handler.js';
import { HttpErrorFilter } from './errors/http-error.filter.js';
import { UNAVAILABLE_MESSAGE } from './errors/http-error.mapping.js';
import { setupOpenApi } from './docs/openapi.setup.js';
import { createHealthController } from './health/health.controller.js';
import { ReadinessProbe } from './health/readiness.probe.js';
import { installHttpMetrics } from './http/http-metrics.hooks.js';
import { capConnections, slowClientOptions } from './http/server-limits.js';
import { createDealImportsController, installCsvBodyParser } from './portfolios/deal-imports.controller.js';
import { createDealsController } from './portfolios/deals.controller.js';
import { createPortfoliosController } from './portfolios/portfolios.controller.js';
import { createPortfolioStatisticsController } from './portfolios/statistics.controller.js';
import { createPortfolioHoldingsController } from './portfolios/holdings.controller.js';
import { createPortfolioHistoryController } from './portfolios/history.controller.js';
import { createPortfolioDividendsController } from './portfolios/dividends.controller.js';
import { createWatchlistsController } from './portfolios/watchlists.controller.js';
import { RepeatedQueryInterceptor } from './validation/repeated-query.interceptor.js';
import { installRequestCharsetHook } from './validation/request-charset.hook.js';
import { installDecimalReplySerializer } from './http/exact-json.js';
import { installWebClient } from './web/web-static.js';
import { MarketEventsInvalidator, type SubscribableConnection } from './screener/market-events.invalidator.js';
import { PublicPageCache } from './screener/public-page.cache.js';
import { installPublicPageHits } from './screener/public-page.hooks.js';
import { publicCacheControl } from './screener/page-response.js';
import { createSharesController } from './screener/shares.controller.js';
import { createAssetsController } from './screener/assets.controller.js';
import { createAssetPageController } from './screener/asset-page.controller.js';

/** Configuration of createGatewayApp: anything left out takes the default of its variable. */
export type GatewayAppOptions = Partial<Omit<GatewayConfig, 'http' | 'publicScreenerCache' | 'payments'>> & {
  /** The payment widget's public id and script; the rest keep their defaults. */
  payments?: Partial<GatewayConfig['payments']>;
  /** Any of the HTTP server limits; the rest keep their defaults. */
  http?: Partial<GatewayConfig['http']>;
  /** Any of the public screener cache's settings; the rest keep their defaults. */
  publicScreenerCache?: Partial<GatewayConfig['publicScreenerCache']>;
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
  /** The public screener's page cache (tests look at it). */
  publicPages: PublicPageCache;
  /** The follower of NotificationFired that feeds the notification streams (tests look at its listeners). */
  feed: NotificationFeed;
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
  const config: GatewayConfig = {
    ...gatewayDefaults,
    ...overrides,
    http: { ...gatewayDefaults.http, ...overrides.http },
    publicScreenerCache: { ...gatewayDefaults.publicScreenerCache, ...overrides.publicScreenerCache },
    payments: { ...gatewayDefaults.payments, ...overrides.payments },
  };
  const logger = givenLogger ?? createLogger('gateway', config.logLevel);

  const proxy = ClientProxyFactory.create({ transport: Transport.NATS, options: natsConnectionOptions(config.natsUrl, 'gateway') });
  const rpc = new RpcClient(proxy, config.rpcTimeoutMs, config.busPrefix);
  const readiness = new ReadinessProbe(rpc, proxy, config.readyServices, config.readyTimeoutMs);
  const auth = new JwtAuthGuard(createJwtVerifier(config.auth), logger);
  const publicPages = new PublicPageCache(config.publicScreenerCache);
  // Hears market changes on the RPC client's own connection (whichever it has now), so no extra connection.
  const invalidator = new MarketEventsInvalidator({
    connection: () => proxy.unwrap<SubscribableConnection>(),
    busPrefix: config.busPrefix,
    onChange: () => publicPages.invalidate(),
    logger,
  });
  // Each connects to NATS on first use (the first stream).
  const feed = new NotificationFeed({ natsUrl: config.natsUrl, busPrefix: config.busPrefix, logger });
  const chatStreams = new ChatStreamReader({ natsUrl: config.natsUrl, busPrefix: config.busPrefix, logger });
  const controllers = [
    createHealthController(readiness),
    createSharesController({ rpc, config, pages: publicPages, invalidator, auth }),
    createAssetsController({ rpc, auth }),
    createAssetPageController({ rpc }),
    createPortfoliosController({ rpc, auth }),
    createDealsController({ rpc, config, auth }),
    createDealImportsController({ rpc, auth }),
    createPortfolioStatisticsController({ rpc, auth }),
    createPortfolioHoldingsController({ rpc, auth }),
    createPortfolioHistoryController({ rpc, auth }),
    createPortfolioDividendsController({ rpc, auth }),
    createWatchlistsController({ rpc, auth }),
    createCustomAssetsController({ rpc, auth }),
    createSubscriptionsController({ rpc, auth, config }),
    createProviderWebhooksController({ rpc, logger }),
    createChatsController({ rpc, config, auth }),
    createChatMessagesController({ rpc, reader: chatStreams, config, logger, auth }),
    createNotificationsController({ rpc, config, auth }),
    createNotificationEventsController({ rpc, config, logger, feed, auth }),
    createNotificationSettingsController({ rpc, auth }),
    createEmailController({ rpc }),
    createPushSubscriptionsController({ rpc, auth }),
    createTelegramController({ rpc, auth, logger, webhookSecret: config.telegramWebhookSecret }),
    createClientConfigController(config),
    ...(config.devRoutes ? [createDevController(config)] : []),
  ];

  const adapter = new FastifyAdapter({
    logger: false,
    bodyLimit: config.bodyLimitBytes,
    frameworkErrors: frameworkErrorHandler(logger),
    // Fastify's own 503 while closing has its own shape and no request id; the hook below answers instead.
    return503OnClosing: false,
    clientErrorHandler: clientErrorHandler(logger),
    ...slowClientOptions(config.http),
  });
  capConnections(adapter.getInstance().server, config.http, logger);
  answerUnmetExpectations(adapter.getInstance().server, logger);
  installRequestContextHooks(adapter.getInstance(), logger);
  installHttpMetrics(adapter.getInstance());
  installRequestCharsetHook(adapter.getInstance(), RAW_BODY_PATH_PREFIX);
  let closing: Promise<void> | undefined;
  // A request that arrives on an open connection while the gateway closes gets a Laravel-shaped 503 and the
  // connection is closed; a load balancer sends it elsewhere.
  adapter.getInstance().addHook('onRequest', (_request, reply, done) => {
    if (closing === undefined) return done();
    void reply.code(503).header('connection', 'close').send({ message: UNAVAILABLE_MESSAGE });
  });
  installPublicPageHits(adapter.getInstance(), {
    pages: publicPages,
    invalidator,
    cacheControl: publicCacheControl(config.publicScreenerCache.ttlMs),
    ...(config.publicBaseUrl ? { baseUrl: config.publicBaseUrl } : {}),
  });
  installDecimalReplySerializer(adapter.getInstance());
  installWebClient(adapter.getInstance(), config.webDistDir, logger, config.payments.widgetUrl);
  // After the hooks above that answer from memory (page cache hits, web files): those are counted, not traced.
  installRequestSpanHook(adapter.getInstance());
  // Nest closes the streams' NATS connections once the HTTP server has stopped (app.close()).
  const app = await NestFactory.create<NestFastifyApplication>(
    serviceModule(controllers, () => Promise.all([feed.close(), chatStreams.close()])),
    adapter,
    { logger: new PinoNestLogger(logger), abortOnError: false },
  );
  app.useGlobalFilters(new HttpErrorFilter(logger));
  app.useGlobalInterceptors(new RepeatedQueryInterceptor());
  // JSON bodies: exact decimals (exactJsonBodyParser); provider webhooks: raw bytes.
  installRawBodyParsers(app, config.bodyLimitBytes);
  installOneClickFormParser(app);
  installCsvBodyParser(app);
  await setupOpenApi(app);

  // A gateway without NATS still starts: requests answer 503 and /ready says why until NATS is back.
  try {
    await rpc.connect();
    invalidator.live();
  } catch (err) {
    logger.warn({ err, natsUrl: config.natsUrl }, 'NATS not reachable at start; will retry on demand');
  }
  await app.init();

  return {
    app,
    config,
    logger,
    rpc,
    publicPages,
    feed,
    async listen(port = config.port, host = config.host) {
      await app.listen({ port, host });
      if (config.auth.jwtSecret === DEV_JWT_SECRET && !isLoopback(host)) {
        logger.warn(
          { host },
          'the development JWT secret is in use on a non-loopback address: anyone who can reach this port can mint a token for any user. Set AUTH_JWT_SECRET, or HOST=127.0.0.1',
        );
      }
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
          invalidator.close();
          await Promise.resolve(rpc.close()).catch((err: unknown) => logger.warn({ err }, 'closing NATS failed'));
        }
      })();
      return closing;
    },
  };
}

/** Whether a listen address is reachable from this machine only. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
