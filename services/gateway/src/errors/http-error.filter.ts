import { type ArgumentsHost, Catch, type ExceptionFilter } from '@nestjs/common';
import { runWithContext, type Logger } from '@invest/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { localeFromAcceptLanguage } from '../i18n/accept-language.js';
import { localizeErrorBody } from '../i18n/localize-error.js';
import { toHttpError } from './http-error.mapping.js';

/**
 * Every error of every route (and Fastify's own: bad JSON, body too large, unknown route) leaves
 * through here, in the Laravel shape, its messages in the request's `Accept-Language` (services write English; see
 * i18n/error-texts.ts). 5xx causes are logged, never sent.
 */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  constructor(private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const request = http.getRequest<FastifyRequest>();
    const { status, body, internal, headers } = toHttpError(exception, { method: request?.method });
    if (internal !== undefined) this.log(request, status, internal);
    if (reply.sent) return;
    if (status === 401) reply.header('www-authenticate', 'Bearer');
    if (headers) reply.headers(headers);
    reply.status(status).send(localizeErrorBody(body, localeFromAcceptLanguage(request?.headers['accept-language'], 'en')));
  }

  private log(request: FastifyRequest | undefined, status: number, internal: unknown) {
    const write = () =>
      status === 503
        ? this.logger.warn({ reason: internal instanceof Error ? internal.message : String(internal) }, 'upstream unavailable')
        : this.logger.error({ err: internal }, 'unhandled error');
    // Errors raised before the handler (body parsing) run outside the request's async context.
    const ctx = request?.ctx;
    if (ctx) runWithContext(ctx, write);
    else write();
  }
}
