import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ServiceError } from '@invest/platform';
import { z } from 'zod';
import { mintDevToken } from '../auth/dev-token.js';
import { subjectProblem } from '../auth/token-rules.js';
import type { GatewayConfig } from '../config/gateway.config.js';
import { ApiCommonErrors, openApiSchema } from '../docs/openapi.schemas.js';
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

const clientConfigSchema = z.object({
  data: z.object({ cloudpayments_public_id: z.string(), payment_widget_url: z.string(), dev_routes: z.boolean() }),
});

/** What the web client needs to know about this deployment (public). */
export function createClientConfigController(config: GatewayConfig) {
  @ApiTags('web')
  @Controller('api')
  class ClientConfigController {
    @Get('client-config')
    @ApiOperation({ summary: 'Web client configuration', description: 'The CloudPayments public id and script of the payment widget, and whether the development routes (`/api/dev/*`) exist.' })
    @ApiOkResponse({ schema: openApiSchema(clientConfigSchema) })
    clientConfig(): z.infer<typeof clientConfigSchema> {
      return { data: { cloudpayments_public_id: config.payments.publicId, payment_widget_url: config.payments.widgetUrl, dev_routes: config.devRoutes } };
    }
  }
  return ClientConfigController;
}

/**
 * Development-only routes, registered only outside production: a sign-in form's token (production tokens
 * come from the identity provider).
 */
export function createDevController(config: GatewayConfig) {
  @ApiTags('development')
  @Controller('api/dev')
  class DevController {
    @Post('token')
    @HttpCode(200)
    @ApiOperation({ summary: 'Development token (not in production)', description: 'An HS256 token for `user_id`, valid 12 hours, signed with the development (or configured) secret.' })
    @ApiBody({ schema: openApiSchema(devTokenRequestSchema, 'input') })
    @ApiOkResponse({ schema: openApiSchema(devTokenReplySchema) })
    @ApiCommonErrors({ validation: true })
    async token(@Body() body: unknown): Promise<z.infer<typeof devTokenReplySchema>> {
      const { user_id } = parseBody(devTokenRequestSchema, body);
      const secret = config.auth.jwtSecret;
      if (!secret) throw ServiceError.unavailable('Tokens are verified through AUTH_JWKS_URL only; none can be minted here.');
      const ttl = Math.min(FORM_TOKEN_TTL_S, config.auth.maxTokenTtlS ?? FORM_TOKEN_TTL_S);
      return { data: { token: await mintDevToken(user_id, secret, ttl), user_id, expires_in: ttl } };
    }
  }
  return DevController;
}
