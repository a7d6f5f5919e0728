import { Controller, Headers, HttpCode, Inject, Post, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { type ProviderNotification, Subjects } from '@invest/contracts';
import type { RpcClient } from '@invest/platform';
import type { FastifyRequest } from 'fastify';
import { RPC_CLIENT } from '../gateway.tokens.js';

/** Paths whose bodies reach their handler as the raw bytes (see installRawBodyParsers). */
export const RAW_BODY_PATH_PREFIX = '/api/provider/';

/**
 * CloudPayments notifications. The gateway neither parses nor re-encodes them: it forwards the raw bytes
 * and the signature headers, and billing (which alone holds the secret) checks the signature first.
 */
@ApiExcludeController()
@Controller('api/provider')
export class ProviderWebhooksController {
  constructor(@Inject(RPC_CLIENT) private readonly rpc: RpcClient) {}

  @Post('payment-success')
  @HttpCode(200)
  pay(@Req() req: FastifyRequest, @Headers('content-hmac') contentHmac?: string, @Headers('x-content-hmac') xContentHmac?: string): Promise<{ code: 0 }> {
    return this.rpc.request(Subjects.billing.providerPay, notification(req, contentHmac, xContentHmac));
  }

  @Post('recurrent')
  @HttpCode(200)
  recurrent(@Req() req: FastifyRequest, @Headers('content-hmac') contentHmac?: string, @Headers('x-content-hmac') xContentHmac?: string): Promise<{ code: 0 }> {
    return this.rpc.request(Subjects.billing.providerRecurrent, notification(req, contentHmac, xContentHmac));
  }
}

function notification(req: FastifyRequest, contentHmac?: string, xContentHmac?: string): ProviderNotification {
  // No body (or one of another type) still goes to billing, whose signature check refuses it with a 401.
  const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  return {
    body: raw.toString('base64'),
    contentType: req.headers['content-type'] ?? null,
    contentHmac: contentHmac ?? null,
    xContentHmac: xContentHmac ?? null,
  };
}
