import { Body, Controller, Get, Put, UseGuards } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { DeliverySubjects, type NotificationSettingsReply, notificationSettingsReplySchema, putNotificationSettingsSchema } from '@invest/contracts';
import type { RpcClient } from '@invest/platform';
import type { JwtAuthGuard } from '../auth/jwt-auth.guard.js';
import { ApiOwnedResource } from '../common/resource.openapi.js';
import { openApiSchema } from '../docs/openapi.schemas.js';
import { parseBody } from '../validation/request-input.js';

const reply = openApiSchema(notificationSettingsReplySchema);

/** Where the signed-in user's fired notifications go besides the inbox: channels, quiet hours, language. */
export function createNotificationSettingsController({ rpc, auth }: { rpc: RpcClient; auth: JwtAuthGuard }) {
  @ApiTags('notification settings')
  @UseGuards(auth)
  @Controller('api/notification-settings')
  class NotificationSettingsController {
    @Get()
    @ApiOperation({
      summary: "The user's notification settings",
      description:
        'Channels on or off, quiet hours in `time_zone`, the language of messages, and the state of each channel: a linked ' +
        'Telegram chat (or one that blocked the bot), the e-mail address and whether it is confirmed, push devices, and the last ' +
        'permanent delivery failure per channel. A user who never saved settings gets the defaults: every channel on, no quiet hours, ' +
        'Europe/Moscow, Russian.',
    })
    @ApiOkResponse({ schema: reply })
    @ApiOwnedResource()
    get(): Promise<NotificationSettingsReply> {
      return rpc.request(DeliverySubjects.settingsGet, {});
    }

    @Put()
    @ApiOperation({
      summary: 'Change notification settings',
      description:
        'Every field is optional; what is absent stays. `quiet_hours: null` removes them; hours may span midnight (23:00-07:00). ' +
        'Messages due in the quiet hours wait and go out as one digest per channel when they end. A new `email` is unconfirmed until ' +
        'the link sent to it is followed (no alert goes to it before); `email: null` removes the address.',
    })
    @ApiBody({
      schema: {
        ...openApiSchema(putNotificationSettingsSchema, 'input'),
        example: { channels: { telegram: true, email: false }, quiet_hours: { start: '23:00', end: '07:00' }, time_zone: 'Europe/Moscow', language: 'en' },
      },
    })
    @ApiOkResponse({ schema: reply, description: 'The settings as saved.' })
    @ApiOwnedResource({ validation: true })
    put(@Body() body: unknown): Promise<NotificationSettingsReply> {
      return rpc.request(DeliverySubjects.settingsPut, parseBody(putNotificationSettingsSchema, body));
    }
  }
  return NotificationSettingsController;
}
