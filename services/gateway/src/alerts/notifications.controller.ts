import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Query, Req, UseGuards } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  activeNotificationsSchema,
  createPriceAlertRequestSchema,
  createPriceChangeAlertRequestSchema,
  type NotificationReply,
  notificationSchema,
  type NotificationsPage,
  type NotificationView,
  pageQuerySchema,
  Subjects,
} from '@invest/contracts';
import type { RpcClient } from '@invest/platform';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { JwtAuthGuard } from '../auth/jwt-auth.guard.js';
import type { GatewayConfig } from '../config/gateway.config.js';
import { ApiQueryFromSchema, pageSchema } from '../docs/openapi.schemas.js';
import { withDecimalNumbers } from '../http/exact-json.js';
import { ApiIdempotencyKey, IDEMPOTENCY_KEY, idempotencyOptions } from '../idempotency/idempotency-key.js';
import { type LinkedPage, withLinks } from '../paging/page-links.js';
import { ApiIdParam, ApiOwnedResource, dataSchema } from '../common/resource.openapi.js';
import { openApiSchema } from '../docs/openapi.schemas.js';
import { parseBody, parseQuery } from '../validation/request-input.js';

const notification = openApiSchema(notificationSchema);
// Prices (a target, the current rate) come as decimal text and are answered as JSON numbers with every digit.
const notificationReply = z.object({ data: notificationSchema });
const notificationsPage = z.object({ data: z.array(notificationSchema) });
const notificationsPageSchema = (() => {
  const page = pageSchema(notification);
  return {
    ...page,
    properties: {
      ...page.properties,
      active_notifications: {
        ...openApiSchema(activeNotificationsSchema),
        description: 'Active notifications and how many the plan allows (`limit` null: no limit); missing when the plan is not known.',
      },
    },
  };
})();

/** The plan gate's 403 (documented on the creates and the switch). */
export const ApiPlanRequired = () =>
  ApiResponse({
    status: 403,
    description: 'The plan does not allow it (free: 3 active notifications, asset targets only).',
    schema: {
      type: 'object',
      required: ['message', 'code', 'limit'],
      properties: {
        message: { type: 'string', example: 'Your plan allows 3 active notifications.' },
        code: { type: 'string', enum: ['plan_required'] },
        limit: { type: 'object', example: { active_notifications: 3, plan: 'free' } },
      },
    },
  });

/** Price notifications of the signed-in user (alerts service). */
export function createNotificationsController({ rpc, config, auth }: { rpc: RpcClient; config: GatewayConfig; auth: JwtAuthGuard }) {
  @ApiTags('notifications')
  @UseGuards(auth)
  @Controller('api')
  class NotificationsController {
    @Post('price-alert')
    @ApiOperation({
      summary: 'Create a price-target notification',
      description:
        'Fires once when the rate reaches target_price, then deactivates. `direction` `above` waits for a rise to the target (operator >=), `below` for a fall (<=); ' +
        'a target the current rate has already reached that way (above: target <= rate; below: target >= rate) is a 422 on target_price. ' +
        'Without `direction` it is fixed now from the current rate (a target above it waits for a rise); a target equal to it is a 422.',
    })
    @ApiBody({
      schema: { ...openApiSchema(createPriceAlertRequestSchema, 'input'), example: { target_price: 350.5, assetable: { type: 'share', id: 123 }, direction: 'above', name: 'SBER at 350' } },
    })
    @ApiCreatedResponse({ schema: dataSchema(notification) })
    @ApiOwnedResource({ validation: true })
    @ApiPlanRequired()
    @ApiIdempotencyKey()
    async createPriceAlert(@Body() body: unknown, @Headers(IDEMPOTENCY_KEY) key: unknown): Promise<NotificationReply> {
      const opts = idempotencyOptions(key);
      const parsed = parseBody(createPriceAlertRequestSchema, body);
      return withDecimalNumbers(notificationReply, await rpc.request<NotificationReply>(Subjects.alerts.priceAlertsCreate, parsed, opts));
    }

    @Post('price-change-alert')
    @ApiOperation({
      summary: 'Create a price-change notification',
      description:
        'Fires when |24h change| of the asset (or of any asset of the portfolio or watchlist) reaches the threshold, at most once per cooldown (hourly 60 min, daily 1440 min); ' +
        'the threshold then grows by its step (5 → 10 → 15) and returns to the step at the start of each day (MARKET_TZ).',
    })
    @ApiBody({
      schema: {
        ...openApiSchema(createPriceChangeAlertRequestSchema, 'input'),
        example: { threshold: 5, frequency: 'daily', targetable_type: 'asset', targetable_id: 123, assetable_type_simplified: 'share', name: 'SBER moves' },
      },
    })
    @ApiCreatedResponse({ schema: dataSchema(notification) })
    @ApiOwnedResource({ validation: true })
    @ApiPlanRequired()
    @ApiIdempotencyKey()
    async createPriceChangeAlert(@Body() body: unknown, @Headers(IDEMPOTENCY_KEY) key: unknown): Promise<NotificationReply> {
      const opts = idempotencyOptions(key);
      const parsed = parseBody(createPriceChangeAlertRequestSchema, body);
      return withDecimalNumbers(notificationReply, await rpc.request<NotificationReply>(Subjects.alerts.priceChangeAlertsCreate, parsed, opts));
    }

    @Post('switch-notification/:id')
    @HttpCode(200)
    @ApiOperation({ summary: 'Switch a notification on or off', description: 'For price-change the threshold also returns to its step. Switching on counts against the plan.' })
    @ApiIdParam('id', 'Notification')
    @ApiOkResponse({ schema: dataSchema(notification) })
    @ApiOwnedResource({ notFound: 'The notification' })
    @ApiPlanRequired()
    async switch(@Param('id') id: string): Promise<NotificationReply> {
      return withDecimalNumbers(notificationReply, await rpc.request<NotificationReply>(Subjects.alerts.notificationsSwitch, { id }));
    }

    @Get('notifications')
    @ApiOperation({ summary: "The user's notifications", description: 'Newest first, with the condition, the type and the target with its latest rate.' })
    @ApiQueryFromSchema(pageQuerySchema, { page: 'Page number, from 1.', per_page: 'Rows per page (1-100).' })
    @ApiOkResponse({ schema: notificationsPageSchema })
    @ApiOwnedResource({ validation: true })
    async list(
      @Query() query: Record<string, unknown>,
      @Req() request: FastifyRequest,
    ): Promise<LinkedPage<NotificationView> & Pick<NotificationsPage, 'active_notifications'>> {
      const paging = parseQuery(pageQuerySchema, query);
      const page = await rpc.request<NotificationsPage>(Subjects.alerts.notificationsList, paging);
      const active = page.active_notifications ? { active_notifications: page.active_notifications } : {};
      return withDecimalNumbers(notificationsPage, { ...withLinks(page, request.url, config.publicBaseUrl), ...active });
    }

    @Delete('notifications/:id')
    @HttpCode(204)
    @ApiOperation({ summary: 'Delete a notification' })
    @ApiIdParam('id', 'Notification')
    @ApiNoContentResponse({ description: 'Deleted.' })
    @ApiOwnedResource({ notFound: 'The notification' })
    async delete(@Param('id') id: string): Promise<void> {
      await rpc.request(Subjects.alerts.notificationsDelete, { id });
    }
  }
  return NotificationsController;
}
