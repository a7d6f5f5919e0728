import type { Type } from '@nestjs/common';
import type { Db, Logger } from '@invest/platform';
import type { TelegramConfig } from '../config/delivery.config.js';
import { TelegramBot } from './telegram-bot.service.js';
import { TelegramClient } from './telegram.client.js';
import { createTelegramHandler } from './telegram.handler.js';
import { FREE_BROADCAST_PER_SECOND, TelegramPacer, type TelegramPacerOptions } from './telegram-pacer.js';
import { TelegramSender } from './telegram.sender.js';

export interface TelegramChannelOptions {
  /** Absent: no TELEGRAM_BOT_TOKEN, the channel is off. */
  config: TelegramConfig | undefined;
  /** Telegram's pace by default (one message a second per chat, 30 overall); tests may go faster. */
  pacing?: TelegramPacerOptions;
  db: Db;
  clock: () => Date;
  logger: Logger;
  /** Where the gateway is reached from outside: Telegram posts updates there. */
  publicBaseUrl: string;
}

/** The Telegram channel's parts for the app: its RPC handler, and with a bot configured the bot and the sender. */
export interface TelegramChannel {
  handler: Type;
  bot?: TelegramBot;
  sender?: TelegramSender;
}

export function telegramChannel(opts: TelegramChannelOptions): TelegramChannel {
  const { config, db, clock, logger } = opts;
  if (!config) {
    logger.info('telegram: TELEGRAM_BOT_TOKEN is not set, so the Telegram channel is off');
    return { handler: createTelegramHandler(undefined) };
  }
  const client = new TelegramClient({ apiUrl: config.apiUrl, botToken: config.botToken, timeoutMs: config.timeoutMs, logger });
  // One pacer for notifications and replies: both count against the same chat's limit.
  const pacer = new TelegramPacer(opts.pacing);
  const bot = new TelegramBot({ db, client, pacer, clock, logger, publicBaseUrl: opts.publicBaseUrl, webhookSecret: config.webhookSecret });
  const sender = new TelegramSender({ client, pacer, clock, logger, paidBroadcast: (opts.pacing?.perSecond ?? FREE_BROADCAST_PER_SECOND) > FREE_BROADCAST_PER_SECOND });
  return { handler: createTelegramHandler(bot), bot, sender };
}
