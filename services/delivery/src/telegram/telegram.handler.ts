import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { DeliverySubjects, type RpcRequest, type TelegramLinkReply } from '@invest/contracts';
import { parseOrThrow, requireUser } from '@invest/platform';
import { type TelegramBot, telegramUnavailable } from './telegram-bot.service.js';
import { telegramUpdateRequestSchema } from './telegram-update.js';

/**
 * `delivery.telegram.*`: a user's link to the bot, and the updates the gateway accepted from Telegram. With no
 * bot configured (`bot` undefined) linking answers 503 and updates are acknowledged and dropped.
 */
export function createTelegramHandler(bot: TelegramBot | undefined) {
  @Controller()
  class TelegramHandler {
    @MessagePattern(DeliverySubjects.telegramLink)
    link(@Payload() req: RpcRequest<unknown>): Promise<TelegramLinkReply> {
      const userId = requireUser(req.meta);
      if (!bot) throw telegramUnavailable('Telegram notifications are not set up on this server.');
      return bot.link(userId);
    }

    /** Sent by Telegram, not by a user: the gateway checked its secret header before reading it. */
    @MessagePattern(DeliverySubjects.telegramUpdate)
    async update(@Payload() req: RpcRequest<unknown>): Promise<{ ok: true }> {
      const { update } = parseOrThrow(telegramUpdateRequestSchema, req.data);
      return bot ? bot.handle(update) : { ok: true };
    }
  }
  return TelegramHandler;
}
