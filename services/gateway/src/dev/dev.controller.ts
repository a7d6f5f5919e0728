import { Body, Controller, Get, HttpCode, Inject, Post, Req, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type Logger, ServiceError } from '@invest/platform';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { mintDevToken } from '../auth/dev-token.js';
import { JwtAuthGuard } from '../auth/jwt-auth.guard.js';
import { subjectProblem } from '../auth/token-rules.js';
import type { GatewayConfig } from '../config/gateway.config.js';
import { ApiCommonErrors, openApiSchema } from '../docs/openapi.schemas.js';
import { GATEWAY_CONFIG, GATEWAY_LOGGER } from '../gateway.tokens.js';
import { parseBody } from '../validation/request-input.js';

/** Lifetime of a token from the development sign-in form. */
const FORM_TOKEN_TTL_S = 12 * 3600;

export const devTokenRequestSchema = z.object({
  user_id: z
    .string({ error: 'The user id field is required.' })
    .min(1, 'The user id field is required.')
    .max(255, 'The user id may not be greater than 255 characters.')
    .refine((v) => subjectProblem(v) === undefined, 'The user id may not have control characters or surrounding spaces.'),
});
const devTokenReplySchema = z.object({ data: z.object({ token: z.string(), user_id: z.string(), expires_in: z.number().int() }) });

export const devPaymentRequestSchema = z.object({
  plan: z.string({ error: 'The plan field is required.' }).min(1, 'The plan field is required.'),
  uuid: z.string({ error: 'The uuid field is required.' }).uuid('The uuid must be a valid UUID.'),
});
const devPaymentReplySchema = z.object({ data: z.object({ invoice_id: z.string(), transaction_id: z.number().int(), amount: z.string() }) });

const clientConfigSchema = z.object({
  data: z.object({ cloudpayments_public_id: z.string(), dev_routes: z.boolean() }),
});

/** What the web client needs to know about this deployment (public). */
@ApiTags('web')
@Controller('api')
export class ClientConfigController {
  constructor(@Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig) {}

  @Get('client-config')
  @ApiOperation({ summary: 'Web client configuration', description: 'The CloudPayments public id of the payment widget, and whether the development routes (`/api/dev/*`) exist.' })
  @ApiOkResponse({ schema: openApiSchema(clientConfigSchema) })
  clientConfig(): z.infer<typeof clientConfigSchema> {
    return { data: { cloudpayments_public_id: this.config.payments.publicId, dev_routes: this.config.devRoutes } };
  }
}

/**
 * Development-only routes, registered only outside production: a sign-in form's token (production tokens
 * come from the identity provider), and the payment widget stand-in that pays at the local CloudPayments.
 */
@ApiTags('development')
@Controller('api/dev')
export class DevController {
  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(GATEWAY_LOGGER) private readonly logger: Logger,
  ) {}

  @Post('token')
  @HttpCode(200)
  @ApiOperation({ summary: 'Development token (not in production)', description: 'An HS256 token for `user_id`, valid 12 hours, signed with the development (or configured) secret.' })
  @ApiBody({ schema: openApiSchema(devTokenRequestSchema, 'input') })
  @ApiOkResponse({ schema: openApiSchema(devTokenReplySchema) })
  @ApiCommonErrors({ validation: true })
  async token(@Body() body: unknown): Promise<z.infer<typeof devTokenReplySchema>> {
    const { user_id } = parseBody(devTokenRequestSchema, body);
    const secret = this.config.auth.jwtSecret;
    if (!secret) throw ServiceError.unavailable('Tokens are verified through AUTH_JWKS_URL only; none can be minted here.');
    const ttl = Math.min(FORM_TOKEN_TTL_S, this.config.auth.maxTokenTtlS ?? FORM_TOKEN_TTL_S);
    return { data: { token: await mintDevToken(user_id, secret, ttl), user_id, expires_in: ttl } };
  }

  @Post('payment-widget/pay')
  @HttpCode(200)
  @UseGuards(JwtAuthGuard)
  @ApiBearerAuth()
  @ApiOperation({
    summary: 'Payment widget stand-in (not in production)',
    description: 'Pays `plan` with invoice `uuid` for the signed-in user at the local CloudPayments (as the widget would, without the Pay notification); the client then calls `/api/subscribe`.',
  })
  @ApiBody({ schema: openApiSchema(devPaymentRequestSchema, 'input') })
  @ApiOkResponse({ schema: openApiSchema(devPaymentReplySchema) })
  @ApiCommonErrors({ validation: true, auth: true })
  async pay(@Body() body: unknown, @Req() request: FastifyRequest): Promise<z.infer<typeof devPaymentReplySchema>> {
    const { plan, uuid } = parseBody(devPaymentRequestSchema, body);
    const provider = this.config.payments.devProviderUrl;
    if (!provider) throw ServiceError.unavailable('No local payment provider: CLOUDPAYMENTS_API_URL is not set.');
    let res: Response;
    try {
      res = await fetch(`${provider}/demo/pay`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        // No Pay notification: `/api/subscribe` (what the widget's success callback calls) records the payment, so
        // the client's path, 409 included, is what a person trying it sees. Billing's tests cover notifications.
        body: JSON.stringify({ accountId: request.user!.id, plan, invoiceId: uuid, notify: false }),
        signal: AbortSignal.timeout(10_000),
      });
    } catch (err) {
      this.logger.warn({ err }, 'dev payment widget: provider unreachable');
      throw ServiceError.unavailable('The local payment provider did not answer.');
    }
    const answer = (await res.json().catch(() => ({}))) as { invoiceId?: string; transactionId?: number; amount?: string; message?: string };
    if (res.status === 422) throw ServiceError.validation({ plan: [answer.message ?? 'The plan cannot be paid.'] });
    if (!res.ok || !answer.invoiceId) throw ServiceError.unavailable('The local payment provider refused the payment.');
    return { data: { invoice_id: answer.invoiceId, transaction_id: answer.transactionId ?? 0, amount: answer.amount ?? '' } };
  }
}
