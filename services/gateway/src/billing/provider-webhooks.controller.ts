import { applyDecorators, Controller, Headers, HttpCode, PayloadTooLargeException, Post, Req } from '@nestjs/common';
import { ApiConsumes, ApiHeader, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { PROVIDER_HEADER_MAX_CHARS, PROVIDER_NOTIFICATION_MAX_BYTES, type ProviderNotification, Subjects } from '@invest/contracts';
import type { Logger, RpcClient } from '@invest/platform';
import type { FastifyRequest } from 'fastify';

/** Paths whose bodies reach their handler as the raw bytes (see installRawBodyParsers). */
export const RAW_BODY_PATH_PREFIX = '/api/provider/';

/**
 * CloudPayments notifications. The gateway neither parses nor re-encodes them: it forwards the raw bytes
 * and the signature headers, and billing (which alone holds the secret) checks the signature first.
 */
/** OpenAPI of a provider notification route: form or JSON body, the two signature headers, `{"code":0}`. */
function ApiProviderNotification(summary: string, description: string) {
  return applyDecorators(
    ApiOperation({ summary, description }),
    ApiConsumes('application/x-www-form-urlencoded', 'application/json'),
    ApiHeader({ name: 'Content-HMAC', required: false, description: 'base64 HMAC-SHA256 of the raw body with the API secret.' }),
    ApiHeader({ name: 'X-Content-HMAC', required: false, description: 'base64 HMAC-SHA256 of the URL-decoded parameters with the API secret.' }),
    ApiOkResponse({ description: 'Recorded, already known, or not applicable.', schema: { type: 'object', properties: { code: { type: 'integer', enum: [0] } } } }),
    ApiResponse({ status: 401, description: 'Missing or bad signature (checked before the body is read).' }),
    ApiResponse({ status: 413, description: 'A body larger than 512 KiB (no real notification comes near it).' }),
    ApiResponse({ status: 503, description: 'Billing unavailable: the provider retries.' }),
  );
}

export function createProviderWebhooksController({ rpc, logger }: { rpc: RpcClient; logger: Logger }) {
  @ApiTags('provider notifications')
  @Controller('api/provider')
  class ProviderWebhooksController {
    @Post('payment-success')
    @HttpCode(200)
    @ApiProviderNotification(
      'CloudPayments Pay notification',
      'Signed by the provider (not a user). Records the payment once per TransactionId; a payment whose InvoiceId was confirmed by /api/subscribe is the same payment.',
    )
    pay(@Req() req: FastifyRequest, @Headers('content-hmac') contentHmac?: string, @Headers('x-content-hmac') xContentHmac?: string): Promise<{ code: 0 }> {
      return rpc.request(Subjects.billing.providerPay, notification(req, logger, contentHmac, xContentHmac));
    }

    @Post('recurrent')
    @HttpCode(200)
    @ApiProviderNotification('CloudPayments Recurrent notification', 'Cancelled, Rejected or Expired move the subscription to cancelled; it stays usable until ends_at.')
    recurrent(@Req() req: FastifyRequest, @Headers('content-hmac') contentHmac?: string, @Headers('x-content-hmac') xContentHmac?: string): Promise<{ code: 0 }> {
      return rpc.request(Subjects.billing.providerRecurrent, notification(req, logger, contentHmac, xContentHmac));
    }

    @Post('fail')
    @HttpCode(200)
    @ApiProviderNotification(
      'CloudPayments Fail notification',
      'A declined charge, recorded once per TransactionId. A recurring charge moves the subscription to past_due: usable through a grace period of 3 days while the provider tries again (three attempts); the payment history lists it as failed.',
    )
    fail(@Req() req: FastifyRequest, @Headers('content-hmac') contentHmac?: string, @Headers('x-content-hmac') xContentHmac?: string): Promise<{ code: 0 }> {
      return rpc.request(Subjects.billing.providerFail, notification(req, logger, contentHmac, xContentHmac));
    }

    @Post('receipt')
    @HttpCode(200)
    @ApiProviderNotification(
      'CloudPayments Receipt notification (54-FZ)',
      'The fiscal receipt of a charge, recorded once per TransactionId and Type; the payment history links a payment\'s receipt (Url). A charge with no receipt an hour after its payment is logged as an error and fails /ready.',
    )
    receipt(@Req() req: FastifyRequest, @Headers('content-hmac') contentHmac?: string, @Headers('x-content-hmac') xContentHmac?: string): Promise<{ code: 0 }> {
      return rpc.request(Subjects.billing.providerReceipt, notification(req, logger, contentHmac, xContentHmac));
    }

    @Post('refund')
    @HttpCode(200)
    @ApiProviderNotification(
      'CloudPayments Refund notification',
      'Records the refund once per its TransactionId against the payment `PaymentTransactionId`; the paid time the refunded share bought is taken back, and the payment history shows it refunded.',
    )
    refund(@Req() req: FastifyRequest, @Headers('content-hmac') contentHmac?: string, @Headers('x-content-hmac') xContentHmac?: string): Promise<{ code: 0 }> {
      return rpc.request(Subjects.billing.providerRefund, notification(req, logger, contentHmac, xContentHmac));
    }
  }
  return ProviderWebhooksController;
}

function notification(req: FastifyRequest, logger: Logger, contentHmac?: string, xContentHmac?: string): ProviderNotification {
  // No body (or one of another type) still goes to billing, whose signature check refuses it with a 401.
  const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  // Larger, its base64 would pass NATS's message limit (a 500); no real notification comes near it.
  if (raw.length > PROVIDER_NOTIFICATION_MAX_BYTES) {
    // Not req.log: Fastify runs without a logger of its own here, so it would write nothing.
    logger.warn({ bytes: raw.length, url: req.url }, 'gateway: provider notification larger than PROVIDER_NOTIFICATION_MAX_BYTES refused (413)');
    throw new PayloadTooLargeException('The request body is too large.');
  }
  // A header too long to be a signature is none (billing answers 401, not a 422 about our schema).
  const header = (v: string | undefined) => (v !== undefined && v.length <= PROVIDER_HEADER_MAX_CHARS ? v : null);
  return {
    body: raw.toString('base64'),
    contentType: header(req.headers['content-type']),
    contentHmac: header(contentHmac),
    xContentHmac: header(xContentHmac),
  };
}
