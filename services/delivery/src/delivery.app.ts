import 'reflect-metadata';
import type { INestMicroservice } from '@nestjs/common';
import { type Bus, createHealthController, createLogger, type Db, type Logger, ServiceResources } from '@invest/platform';
import type { ChannelSender } from './channels/channel.js';
import { createEmailChannel } from './email/email-channel.js';
import type { SmtpConfig } from './email/smtp.client.js';
import { migrations } from './migrations/index.js';
import { createPushChannel, DEVELOPMENT_PUSH_CONFIG, type PushConfig } from './push/push.channel.js';
import { createPushHandler } from './push/push.handler.js';
import { createSettingsHandler } from './settings/settings.handler.js';
import { SettingsService } from './settings/settings.service.js';

export interface DeliveryAppOptions {
  databaseUrl: string;
  natsUrl: string;
  /** `JETSTREAM_REPLICAS` (default 1): replicas of the streams this service creates or updates. */
  jetstreamReplicas?: number;
  busPrefix: string;
  logger?: Logger;
  publicBaseUrl?: string;
  /** Firings of one user within this window go out as one message per channel (default 3 s). */
  groupWindowMs?: number;
  pollMs?: number;
  clock?: () => Date;
  rpcTimeoutMs?: number;
  /** E-mail over SMTP (absent: the channel is off). */
  smtp?: SmtpConfig;
  /** Web push: VAPID keys and subject (default: development, keys generated once and kept). */
  push?: PushConfig;
}

export interface DeliveryApp {
  app: INestMicroservice;
  db: Db;
  bus: Bus;
  senders: ChannelSender[];
  close(): Promise<void>;
}

/** Boots the delivery service: database, NATS handlers, the NotificationFired consumer and the senders. */
export async function createDeliveryApp(opts: DeliveryAppOptions): Promise<DeliveryApp> {
  const logger = opts.logger ?? createLogger('delivery');
  const res = new ServiceResources(logger);
  return res.boot(async () => {
    const db = await res.openDatabase({ url: opts.databaseUrl, migrations, logger });
    const bus = await res.connectBus({ natsUrl: opts.natsUrl, replicas: opts.jetstreamReplicas, name: 'delivery', prefix: opts.busPrefix });
    const senders: ChannelSender[] = [];
    const email = createEmailChannel({ db, logger, smtp: opts.smtp, publicBaseUrl: opts.publicBaseUrl ?? 'http://localhost:3000', pollMs: opts.pollMs ?? 1_000, clock: opts.clock ?? (() => new Date()) });
    if (email.sender) senders.push(email.sender);
    const push = await createPushChannel({ db, config: opts.push ?? DEVELOPMENT_PUSH_CONFIG, logger });
    if (push.sender) senders.push(push.sender);
    const settings = new SettingsService({ db, clock: opts.clock ?? (() => new Date()) });
    const app = await res.startApp([createHealthController('delivery'), createSettingsHandler(settings), email.handler, createPushHandler(push.service)], { name: 'delivery', natsUrl: opts.natsUrl, logger, busPrefix: opts.busPrefix });
    await res.start(email);
    logger.debug({ busPrefix: opts.busPrefix || undefined }, 'delivery service started');
    return { app, db, bus, senders, close: res.close };
  });
}
