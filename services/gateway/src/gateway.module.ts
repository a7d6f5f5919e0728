import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR } from '@nestjs/core';
import type { Logger, RpcClient } from '@invest/platform';
import { NotificationEventsController } from './alerts/notification-events.controller.js';
import { NotificationsController } from './alerts/notifications.controller.js';
import { JwtAuthGuard } from './auth/jwt-auth.guard.js';
import type { JwtVerifier } from './auth/jwt-verifier.js';
import type { GatewayConfig } from './config/gateway.config.js';
import { NOTIFICATION_FEED, NotificationFeed } from './alerts/notification-feed.js';
import { ProviderWebhooksController } from './billing/provider-webhooks.controller.js';
import { SubscriptionsController } from './billing/subscriptions.controller.js';
import { ChatMessagesController } from './chat/chat-messages.controller.js';
import { ChatStreamReader } from './chat/chat-stream.reader.js';
import { CHAT_STREAM_READER } from './chat/chat.tokens.js';
import { ChatsController } from './chat/chats.controller.js';
import { CustomAssetsController } from './custom-assets/custom-assets.controller.js';
import { ClientConfigController, DevController } from './dev/dev.controller.js';
import { HttpErrorFilter } from './errors/http-error.filter.js';
import { GATEWAY_CONFIG, GATEWAY_LOGGER, JWT_VERIFIER, MARKET_EVENTS_INVALIDATOR, PUBLIC_PAGE_CACHE, READINESS_PROBE, RPC_CLIENT } from './gateway.tokens.js';
import { HealthController } from './health/health.controller.js';
import type { ReadinessProbe } from './health/readiness.probe.js';
import { DealsController } from './portfolios/deals.controller.js';
import { PortfoliosController } from './portfolios/portfolios.controller.js';
import { PortfolioStatisticsController } from './portfolios/statistics.controller.js';
import { WatchlistsController } from './portfolios/watchlists.controller.js';
import type { MarketEventsInvalidator } from './screener/market-events.invalidator.js';
import type { PublicPageCache } from './screener/public-page.cache.js';
import { SharesController } from './screener/shares.controller.js';
import { RepeatedQueryInterceptor } from './validation/repeated-query.interceptor.js';

/** What createGatewayApp builds outside Nest and hands to it. */
export interface GatewayDeps {
  config: GatewayConfig;
  logger: Logger;
  rpc: RpcClient;
  verifier: JwtVerifier;
  readiness: ReadinessProbe;
  publicPages: PublicPageCache;
  invalidator: MarketEventsInvalidator;
}

@Module({})
export class GatewayModule {
  static register(deps: GatewayDeps): DynamicModule {
    return {
      module: GatewayModule,
      controllers: [HealthController, SharesController, PortfoliosController, DealsController, PortfolioStatisticsController, WatchlistsController, CustomAssetsController, SubscriptionsController, ProviderWebhooksController, ChatsController, ChatMessagesController, NotificationsController, NotificationEventsController, ClientConfigController, ...(deps.config.devRoutes ? [DevController] : [])],
      providers: [
        { provide: GATEWAY_CONFIG, useValue: deps.config },
        { provide: GATEWAY_LOGGER, useValue: deps.logger },
        { provide: RPC_CLIENT, useValue: deps.rpc },
        { provide: JWT_VERIFIER, useValue: deps.verifier },
        { provide: READINESS_PROBE, useValue: deps.readiness },
        { provide: PUBLIC_PAGE_CACHE, useValue: deps.publicPages },
        { provide: MARKET_EVENTS_INVALIDATOR, useValue: deps.invalidator },
        { provide: APP_FILTER, useFactory: (logger: Logger) => new HttpErrorFilter(logger), inject: [GATEWAY_LOGGER] },
        { provide: APP_INTERCEPTOR, useClass: RepeatedQueryInterceptor },
        JwtAuthGuard,
        {
          provide: NOTIFICATION_FEED,
          useFactory: () => {
            const feed = new NotificationFeed({ natsUrl: deps.config.natsUrl, busPrefix: deps.config.busPrefix, logger: deps.logger });
            return Object.assign(feed, { onApplicationShutdown: () => feed.close() });
          },
        },
        {
          provide: CHAT_STREAM_READER,
          useFactory: () => {
            const reader = new ChatStreamReader({ natsUrl: deps.config.natsUrl, busPrefix: deps.config.busPrefix, logger: deps.logger });
            // Nest calls this on app.close(): the reader's NATS connection goes with the gateway.
            return Object.assign(reader, { onApplicationShutdown: () => reader.close() });
          },
        },
      ],
    };
  }
}
