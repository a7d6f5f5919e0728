import 'reflect-metadata';
import type { INestMicroservice } from '@nestjs/common';
import { type Bus, createHealthController, createLogger, type Db, JobScheduler, type Logger, ServiceResources } from '@invest/platform';
import type { ChannelSender } from './channels/channel.js';
import { DeliverableFiringsClient } from './dispatch/deliverable-firings.client.js';
import { Dispatcher } from './dispatch/dispatcher.js';
import { createNotificationFiredConsumer } from './dispatch/notification-fired.consumer.js';
import { retentionJob } from './dispatch/retention.job.js';
import { createEmailChannel } from './email/email-channel.js';
import type { SmtpConfig } from './email/smtp.client.js';
import { migrations } from './migrations/index.js';
import { createPushChannel, DEVELOPMENT_PUSH_CONFIG, type PushConfig } from './push/push.channel.js';
import { createPushHandler } from './push/push.handler.js';
import { createSettingsHandler } from './settings/settings.handler.js';
import { SettingsService } from './settings/settings.service.js';
import type { TelegramConfig } from './config/delivery.config.js';
import { telegramChannel } from './telegram/telegram-channel.js';
import type { TelegramPacerOptions } from './telegram/telegram-pacer.js';

/** What a sender implements, for tests that register their own (`senders`). */
export type { ChannelSender, OutgoingMessage, SendResult } from './channels/channel.js';

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
  /** ...as soon as none came for this long (default 100 ms): a rate batch's firings come together. */
  groupSettleMs?: number;
  pollMs?: number;
  /** Finished messages and their firings are deleted this many days after sealing (default 30; README, "Loops and jobs"). */
  retentionDays?: number;
  clock?: () => Date;
  rpcTimeoutMs?: number;
  /** The Telegram bot (absent: the channel is off). */
  telegram?: TelegramConfig;
  /** Telegram's pace (default one message a second per chat, 30 overall); tests go faster. */
  telegramPacing?: TelegramPacerOptions;
  /** E-mail over SMTP (absent: the channel is off). */
  smtp?: SmtpConfig;
  /** Web push: VAPID keys and subject (default: development, keys generated once and kept). */
  push?: PushConfig;
  /** More senders (tests' recording ones); one replaces the registered sender of its channel. */
  senders?: ChannelSender[];
  /** Messages sent at once (default 8), the first retry's delay (default 5 s) and the attempts before giving up (default 12). */
  sendConcurrency?: number;
  retryBaseMs?: number;
  maxAttempts?: number;
}

export interface DeliveryApp {
  app: INestMicroservice;
  db: Db;
  bus: Bus;
  senders: ChannelSender[];
  dispatcher: Dispatcher;
  close(): Promise<void>;
}

/** Boots the delivery service: database, NATS handlers, the NotificationFired consumer and the senders. */
export async function createDeliveryApp(opts: DeliveryAppOptions): Promise<DeliveryApp> {
  const logger = opts.logger ?? createLogger('delivery');
  const res = new ServiceResources(logger);
  return res.boot(async () => {
    // The send workers each hold a connection while a provider answers, as do the consumer's 8 handlers.
    const db = await res.openDatabase({ url: opts.databaseUrl, migrations, logger, poolMax: 24 });
    const bus = await res.connectBus({ natsUrl: opts.natsUrl, replicas: opts.jetstreamReplicas, name: 'delivery', prefix: opts.busPrefix }, ['alerts']);
    const rpc = await res.connectRpc({ natsUrl: opts.natsUrl, name: 'delivery-client', defaultTimeoutMs: opts.rpcTimeoutMs ?? 3000, busPrefix: opts.busPrefix });
    const senders: ChannelSender[] = [];
    const clock = opts.clock ?? (() => new Date());
    const publicBaseUrl = opts.publicBaseUrl ?? 'http://localhost:3000';
    const pollMs = opts.pollMs ?? 1_000;
    const email = createEmailChannel({ db, logger, smtp: opts.smtp, publicBaseUrl, pollMs, clock });
    if (email.sender) senders.push(email.sender);
    const push = await createPushChannel({ db, config: opts.push ?? DEVELOPMENT_PUSH_CONFIG, logger });
    if (push.sender) senders.push(push.sender);
    const telegram = telegramChannel({ config: opts.telegram, pacing: opts.telegramPacing, db, clock, logger, publicBaseUrl });
    if (telegram.sender) senders.push(telegram.sender);
    const settings = new SettingsService({ db, clock });
    const app = await res.startApp([createHealthController('delivery', res.problems), createSettingsHandler(settings), email.handler, createPushHandler(push.service), telegram.handler], { name: 'delivery', natsUrl: opts.natsUrl, logger, busPrefix: opts.busPrefix });
    // Once its handlers answer: setting the webhook makes Telegram post updates.
    if (telegram.bot) await res.start(telegram.bot);
    await res.start(email);
    for (const extra of opts.senders ?? []) {
      const i = senders.findIndex((s) => s.channel === extra.channel);
      if (i >= 0) senders[i] = extra;
      else senders.push(extra);
    }
    // Seals message groups into deliveries and sends them (README, "Dispatch"); then the firings start coming.
    const dispatcher = await res.start(
      new Dispatcher({
        db,
        logger,
        clock,
        senders,
        firings: new DeliverableFiringsClient(rpc),
        publicBaseUrl,
        pollMs,
        ...(opts.sendConcurrency !== undefined ? { concurrency: opts.sendConcurrency } : {}),
        ...(opts.retryBaseMs !== undefined ? { retryBaseMs: opts.retryBaseMs } : {}),
        ...(opts.maxAttempts !== undefined ? { maxAttempts: opts.maxAttempts } : {}),
      }),
    );
    const groupWindowMs = opts.groupWindowMs ?? 3_000;
    const groupSettleMs = Math.min(opts.groupSettleMs ?? 100, groupWindowMs);
    await res.start(
      createNotificationFiredConsumer({
        db,
        bus,
        logger,
        clock,
        groupWindowMs,
        groupSettleMs,
        // The group is due once the move's firings stopped coming: seal it then, not at the next poll.
        onRecorded: () => setTimeout(() => dispatcher.wake(), groupSettleMs + 20).unref(),
      }),
    );
    // Hourly and at start, in one instance at a time (advisory lock): the outbox keeps only what is recent or unsent.
    const scheduler = new JobScheduler(db, logger, clock);
    scheduler.schedule(retentionJob({ db, clock, retentionDays: opts.retentionDays ?? 30 }), [], undefined, { atStart: true });
    res.push(() => scheduler.stop());
    logger.debug({ busPrefix: opts.busPrefix || undefined }, 'delivery service started');
    return { app, db, bus, senders, dispatcher, close: res.close };
  });
}
