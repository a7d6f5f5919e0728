import { Body, Controller, Delete, Get, HttpCode, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBody, ApiConflictResponse, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import {
  deletePushSubscriptionSchema,
  DeliverySubjects,
  type PushKeyReply,
  pushKeyReplySchema,
  pushSubscriptionReplySchema,
  type PushSubscriptionReply,
  pushSubscriptionSchema,
} from '@invest/contracts';
import type { RpcClient } from '@invest/platform';
import type { JwtAuthGuard } from '../auth/jwt-auth.guard.js';
import { ApiOwnedResource } from '../common/resource.openapi.js';
import { errorSchemas, openApiSchema } from '../docs/openapi.schemas.js';
import { parseBody, parseQuery } from '../validation/request-input.js';

const subscriptionExample = {
  endpoint: 'https://fcm.googleapis.com/fcm/send/d61c5u920dw:APA91b…',
  expirationTime: null,
  keys: { p256dh: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM', auth: 'tBHItJI5svbpez7KI4CCXg' },
};

/**
 * Web push subscriptions of the signed-in user's browsers (issue 32): the VAPID key to subscribe with, and one
 * stored subscription per browser, which the delivery service sends notifications to.
 */
export function createPushSubscriptionsController({ rpc, auth }: { rpc: RpcClient; auth: JwtAuthGuard }) {
  @ApiTags('notification-channels')
  @UseGuards(auth)
  @Controller('api/push-subscriptions')
  class PushSubscriptionsController {
    @Get('key')
    @ApiOperation({
      summary: 'The VAPID public key',
      description: "The `applicationServerKey` for `pushManager.subscribe()` (base64url, 65 bytes). 503 when web push is not configured on this server.",
    })
    @ApiOkResponse({ schema: openApiSchema(pushKeyReplySchema) })
    @ApiOwnedResource()
    key(): Promise<PushKeyReply> {
      return rpc.request(DeliverySubjects.pushKey, {});
    }

    @Post()
    @ApiOperation({
      summary: "Store this browser's push subscription",
      description:
        'The body is `PushSubscription.toJSON()`. Posting the same endpoint again renews its keys and answers the same (idempotent). ' +
        'The endpoint must be https; a user keeps at most 20 subscriptions (a new one drops the oldest).',
    })
    @ApiBody({ schema: { ...openApiSchema(pushSubscriptionSchema, 'input'), example: subscriptionExample } })
    @ApiCreatedResponse({ schema: openApiSchema(pushSubscriptionReplySchema) })
    @ApiConflictResponse({
      description: 'The endpoint is registered to another user (a browser shared after signing out): unsubscribe it in the browser and subscribe again.',
      schema: errorSchemas.message,
    })
    @ApiOwnedResource({ validation: true })
    subscribe(@Body() body: unknown): Promise<PushSubscriptionReply> {
      return rpc.request(DeliverySubjects.pushSubscribe, parseBody(pushSubscriptionSchema, body));
    }

    @Delete()
    @HttpCode(204)
    @ApiOperation({
      summary: "Remove this browser's push subscription",
      description: 'The endpoint in the body (`{"endpoint": …}`) or as `?endpoint=`. Removing one that is not there, or is another user\'s, changes nothing and is no error.',
    })
    @ApiBody({ required: false, schema: openApiSchema(deletePushSubscriptionSchema, 'input') })
    @ApiQuery({ name: 'endpoint', required: false, schema: { type: 'string' }, description: 'When the body does not give it.' })
    @ApiNoContentResponse({ description: 'Removed, or there was nothing to remove.' })
    @ApiOwnedResource({ validation: true })
    async unsubscribe(@Body() body: unknown, @Query() query: Record<string, unknown>): Promise<void> {
      const fromBody = body !== undefined && body !== null && !(typeof body === 'object' && Object.keys(body).length === 0);
      const req = fromBody ? parseBody(deletePushSubscriptionSchema, body) : parseQuery(deletePushSubscriptionSchema, query);
      await rpc.request(DeliverySubjects.pushUnsubscribe, req);
    }
  }
  return PushSubscriptionsController;
}
