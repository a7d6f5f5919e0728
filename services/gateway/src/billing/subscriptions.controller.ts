import { Body, Controller, Get, HttpCode, Post, Query, Req, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  changePlanRequestSchema,
  type CheckoutReply,
  checkoutReplySchema,
  checkoutRequestSchema,
  type ListPaymentsReply,
  listPaymentsReplySchema,
  type ListPlansReply,
  listPlansReplySchema,
  type Page,
  pageQuerySchema,
  type PaymentHistoryItem,
  paymentHistoryItemSchema,
  subscribeRequestSchema,
  Subjects,
  type SubscriptionReply,
  subscriptionReplySchema,
} from '@invest/contracts';
import type { RpcClient } from '@invest/platform';
import type { FastifyRequest } from 'fastify';
import type { JwtAuthGuard } from '../auth/jwt-auth.guard.js';
import type { GatewayConfig } from '../config/gateway.config.js';
import { ApiCommonErrors, ApiQueryFromSchema, openApiSchema, pageSchema } from '../docs/openapi.schemas.js';
import { type LinkedPage, withLinks } from '../paging/page-links.js';
import { parseBody, parseQuery } from '../validation/request-input.js';

const conflict = { type: 'object', properties: { message: { type: 'string', example: 'You already have an active subscription until 2026-12-27T10:00:00.000Z; nothing was changed. A payment already made extends it once the payment provider reports it.' } } };

const unprocessable = (example: string) => ({
  type: 'object',
  properties: { message: { type: 'string', example }, errors: { type: 'object', properties: { subscription: { type: 'array', items: { type: 'string', example } } } } },
});

/** Plans (public) and the signed-in user's subscription and payments: subscribe after a widget payment, sync with the provider. */
export function createSubscriptionsController({ rpc, auth, config }: { rpc: RpcClient; auth: JwtAuthGuard; config: Pick<GatewayConfig, 'publicBaseUrl'> }) {
  @ApiTags('subscriptions')
  @Controller('api')
  class SubscriptionsController {
    @Get('plans')
    @ApiOperation({ summary: 'Subscription plans', description: 'Public. Prices are exact decimal strings in the plan currency; free plans have none.' })
    @ApiOkResponse({ schema: openApiSchema(listPlansReplySchema) })
    @ApiCommonErrors()
    plans(): Promise<ListPlansReply> {
      return rpc.request(Subjects.billing.plansList, {});
    }

    @Get('subscription')
    @UseGuards(auth)
    @ApiBearerAuth()
    @ApiOperation({ summary: 'The current subscription', description: 'The most recently updated subscription of the user, or `{"data": null}`.' })
    @ApiOkResponse({ schema: openApiSchema(subscriptionReplySchema) })
    @ApiCommonErrors({ auth: true })
    current(): Promise<SubscriptionReply> {
      return rpc.request(Subjects.billing.subscriptionGet, {});
    }

    @Get('payments')
    @UseGuards(auth)
    @ApiBearerAuth()
    @ApiOperation({
      summary: 'The payments recorded for the user',
      description:
        'Newest first, those that grant no paid access too: a payment worth less than one day of its plan is recorded and listed with `grants_access: false` and no `subscription_id`.',
    })
    @ApiOkResponse({ schema: openApiSchema(listPaymentsReplySchema) })
    @ApiCommonErrors({ auth: true })
    payments(): Promise<ListPaymentsReply> {
      return rpc.request(Subjects.billing.paymentsList, {});
    }

    @Get('subscription/payments')
    @UseGuards(auth)
    @ApiBearerAuth()
    @ApiOperation({
      summary: 'The payment history',
      description:
        'Every charge of the user, newest first: date, amount (exact decimal text), plan, status (`paid`, `refunded` after a refund, `failed` for a declined recurring charge), the card\'s last four digits and the receipt link (null until the provider sends it).',
    })
    @ApiQueryFromSchema(pageQuerySchema, { page: 'Page number, from 1.', per_page: 'Rows per page (1-100).' })
    @ApiOkResponse({ schema: pageSchema(openApiSchema(paymentHistoryItemSchema)) })
    @ApiCommonErrors({ auth: true, validation: true })
    async paymentHistory(@Query() query: Record<string, unknown>, @Req() request: FastifyRequest): Promise<LinkedPage<PaymentHistoryItem>> {
      const page = await rpc.request<Page<PaymentHistoryItem>>(Subjects.billing.paymentHistory, parseQuery(pageQuerySchema, query));
      return withLinks(page, request.url, config.publicBaseUrl);
    }

    @Post('subscribe')
    @HttpCode(200)
    @UseGuards(auth)
    @ApiBearerAuth()
    @ApiOperation({
      summary: 'Confirm a widget payment and start or extend the subscription',
      description:
        '`uuid` is the InvoiceId the client gave the payment widget. Billing confirms the payment with the provider (status, amount, account) before recording it; a repeated uuid answers the first result and records nothing. 503 when the provider cannot be reached (nothing recorded).',
    })
    @ApiBody({ schema: openApiSchema(subscribeRequestSchema, 'input') })
    @ApiOkResponse({ schema: openApiSchema(subscriptionReplySchema) })
    @ApiResponse({ status: 409, description: 'An active subscription exists and this uuid is not already recorded (checked before the payment is looked up).', schema: conflict })
    @ApiCommonErrors({ auth: true, validation: true })
    subscribe(@Body() body: unknown): Promise<SubscriptionReply> {
      return rpc.request(Subjects.billing.subscribe, parseBody(subscribeRequestSchema, body));
    }

    @Post('subscription/checkout')
    @HttpCode(200)
    @UseGuards(auth)
    @ApiBearerAuth()
    @ApiOperation({
      summary: 'Start a checkout: what the payment widget pays',
      description:
        'Asked before the payment widget opens. Answers the invoice id (the given `invoice_id`, or a new one; `/api/subscribe` confirms it after the payment), the plan\'s price and currency, the account and the recurrent charge. One purchase at a time: 409 while a paid plan is usable (active, cancelled but paid for, or in its grace period); a change of plan has its own endpoint. A payment that still arrives for the running plan within 10 minutes of the last one (another tab, an old invoice) is recorded and refunded.',
    })
    @ApiBody({ schema: openApiSchema(checkoutRequestSchema, 'input') })
    @ApiOkResponse({ schema: openApiSchema(checkoutReplySchema) })
    @ApiResponse({
      status: 409,
      description: 'A paid plan is usable; nothing was started.',
      schema: { type: 'object', properties: { message: { type: 'string', example: 'You already have an active subscription until 2026-12-27T10:00:00.000Z; to switch plans, change the plan instead of buying it again.' } } },
    })
    @ApiCommonErrors({ auth: true, validation: true })
    checkout(@Body() body: unknown): Promise<CheckoutReply> {
      return rpc.request(Subjects.billing.subscriptionCheckout, parseBody(checkoutRequestSchema, body));
    }

    @Post('subscription/change-plan')
    @HttpCode(200)
    @UseGuards(auth)
    @ApiBearerAuth()
    @ApiOperation({
      summary: 'Change the plan of the active subscription',
      description:
        'Monthly to yearly takes effect now: the card last paid with is charged the yearly price less the credit of the month\'s unused time (floor(monthly price × unused time / that month\'s length), exact to the kopeck), and the subscription runs a year from now. Yearly to monthly takes effect at `ends_at`: the monthly charge starts then. Either way the provider subscription is cancelled (`subscriptions/cancel`) and a new one created (`subscriptions/create`), never updated. 503 when the provider cannot be reached (a retry charges once).',
    })
    @ApiBody({ schema: openApiSchema(changePlanRequestSchema, 'input') })
    @ApiOkResponse({ schema: openApiSchema(subscriptionReplySchema) })
    @ApiResponse({
      status: 409,
      description: 'No active paid subscription, already on that plan, or no saved card.',
      schema: { type: 'object', properties: { message: { type: 'string', example: 'You have no active paid subscription to change; subscribe to a plan instead.' } } },
    })
    @ApiCommonErrors({ auth: true, validation: true })
    changePlan(@Body() body: unknown): Promise<SubscriptionReply> {
      return rpc.request(Subjects.billing.subscriptionChangePlan, parseBody(changePlanRequestSchema, body), { timeoutMs: 30_000 });
    }

    @Post('subscription/cancel')
    @HttpCode(200)
    @UseGuards(auth)
    @ApiBearerAuth()
    @ApiOperation({
      summary: 'Cancel the recurring charge',
      description:
        'Cancels the provider subscription (`subscriptions/cancel`); the subscription stays usable until `ends_at` and answers `status: "cancelled"`. A repeat changes nothing. 503 when the provider cannot be reached (nothing changed).',
    })
    @ApiOkResponse({ schema: openApiSchema(subscriptionReplySchema) })
    @ApiResponse({ status: 422, description: 'No running paid subscription (or a complimentary one, which has no charge).', schema: unprocessable('You have no running paid subscription to cancel.') })
    @ApiCommonErrors({ auth: true })
    cancel(): Promise<SubscriptionReply> {
      return rpc.request(Subjects.billing.subscriptionCancel, {}, { timeoutMs: 30_000 });
    }

    @Post('subscription/resume')
    @HttpCode(200)
    @UseGuards(auth)
    @ApiBearerAuth()
    @ApiOperation({
      summary: 'Resume a cancelled subscription before it ends',
      description:
        'Creates a new provider subscription (`subscriptions/create`) charging the card last paid with from `ends_at` on; the cancelled one is never reactivated. Answers `status: "active"`; a repeat changes nothing. 503 when the provider cannot be reached (nothing changed).',
    })
    @ApiOkResponse({ schema: openApiSchema(subscriptionReplySchema) })
    @ApiResponse({ status: 409, description: 'The subscription has ended, or no card is saved to charge again.', schema: { type: 'object', properties: { message: { type: 'string', example: 'Your subscription ended on 2026-12-27T10:00:00.000Z; it cannot be resumed. Subscribe again to get a paid plan.' } } } })
    @ApiResponse({ status: 422, description: 'No subscription to resume.', schema: unprocessable('You have no subscription to resume.') })
    @ApiCommonErrors({ auth: true })
    resume(): Promise<SubscriptionReply> {
      return rpc.request(Subjects.billing.subscriptionResume, {}, { timeoutMs: 30_000 });
    }

    @Post('sync-subscription')
    @HttpCode(200)
    @UseGuards(auth)
    @ApiBearerAuth()
    @ApiOperation({ summary: 'Synchronise the subscription with the payment provider', description: 'Clients call it when the subscription screen opens. 503 when the provider cannot be reached (nothing changed).' })
    @ApiOkResponse({ schema: openApiSchema(subscriptionReplySchema) })
    @ApiCommonErrors({ auth: true })
    sync(): Promise<SubscriptionReply> {
      // The provider may be slow: the call is bounded by billing's own provider timeout plus this margin.
      return rpc.request(Subjects.billing.subscriptionSync, {}, { timeoutMs: 30_000 });
    }
  }
  return SubscriptionsController;
}
