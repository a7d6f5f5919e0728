import { createHash, timingSafeEqual } from 'node:crypto';
import { BadRequestException, Controller, Headers, HttpCode, PayloadTooLargeException, Post, Req, UnauthorizedException, UseGuards } from '@nestjs/common';
import { ApiConsumes, ApiHeader, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { DeliverySubjects, PROVIDER_NOTIFICATION_MAX_BYTES, type TelegramLinkReply, telegramLinkReplySchema } from '@invest/contracts';
import type { Logger, RpcClient } from '@invest/platform';
import type { FastifyRequest } from 'fastify';
import type { JwtAuthGuard } from '../auth/jwt-auth.guard.js';
import { ApiOwnedResource } from '../common/resource.openapi.js';
import { openApiSchema } from '../docs/openapi.schemas.js';

const SECRET_HEADER = 'x-telegram-bot-api-secret-token';

/** Whether the header is the secret, in time that does not depend on where they differ (or on their lengths). */
export function webhookSecretMatches(expected: string | undefined, given: unknown): boolean {
  if (!expected || typeof given !== 'string') return false;
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(expected), digest(given));
}

/**
 * Telegram: a signed-in user's single-use link to the bot, and the bot's webhook. The webhook is called by
 * Telegram (no bearer token): its secret header is compared with TELEGRAM_WEBHOOK_SECRET before anything of the
 * body is read (it arrives as raw bytes, see installRawBodyParsers), and only then is it parsed and handed to
 * delivery.
 */
export function createTelegramController({ rpc, auth, logger, webhookSecret }: { rpc: RpcClient; auth: JwtAuthGuard; logger: Logger; webhookSecret: string | undefined }) {
  @ApiTags('notification settings')
  @Controller('api')
  class TelegramController {
    @Post('notification-channels/telegram/link')
    @HttpCode(200)
    @UseGuards(auth)
    @ApiOperation({
      summary: 'A link that connects a Telegram chat to the user',
      description:
        '`https://t.me/<bot>?start=<token>`: opening it and pressing Start links that chat. The token works once and for 15 minutes; ' +
        'each call makes a new one. 503 when the server has no Telegram bot set up.',
    })
    @ApiOkResponse({ schema: openApiSchema(telegramLinkReplySchema) })
    @ApiOwnedResource()
    link(): Promise<TelegramLinkReply> {
      return rpc.request(DeliverySubjects.telegramLink, {});
    }

    @Post('provider/telegram')
    @HttpCode(200)
    @ApiOperation({
      summary: 'Telegram bot webhook (called by Telegram)',
      description: 'One Update as JSON. Each update_id is handled once: /start <token>, /stop, /mute 1h, /mute today, /unmute, /status.',
    })
    @ApiConsumes('application/json')
    @ApiHeader({ name: 'X-Telegram-Bot-Api-Secret-Token', required: true, description: 'The secret_token given to setWebhook (TELEGRAM_WEBHOOK_SECRET).' })
    @ApiOkResponse({ description: 'Handled, or already handled.', schema: { type: 'object', properties: { ok: { type: 'boolean', enum: [true] } } } })
    @ApiResponse({ status: 400, description: 'The body is not JSON.' })
    @ApiResponse({ status: 401, description: 'Missing or wrong secret header (checked before the body is read).' })
    @ApiResponse({ status: 503, description: 'Delivery unavailable: Telegram delivers the update again.' })
    async update(@Req() req: FastifyRequest, @Headers(SECRET_HEADER) secret: unknown): Promise<{ ok: true }> {
      if (!webhookSecretMatches(webhookSecret, secret)) throw new UnauthorizedException('Invalid secret token.');
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      if (raw.length > PROVIDER_NOTIFICATION_MAX_BYTES) {
        logger.warn({ bytes: raw.length }, 'gateway: Telegram update larger than PROVIDER_NOTIFICATION_MAX_BYTES refused (413)');
        throw new PayloadTooLargeException('The request body is too large.');
      }
      let update: unknown;
      try {
        update = JSON.parse(raw.toString('utf8'));
      } catch {
        throw new BadRequestException('The request body is not valid JSON.');
      }
      await rpc.request(DeliverySubjects.telegramUpdate, { update });
      return { ok: true };
    }
  }
  return TelegramController;
}
