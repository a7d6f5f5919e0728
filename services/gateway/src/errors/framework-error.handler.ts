import { runWithContext, type Logger } from '@invest/platform';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { correlationIdFrom, REQUEST_ID_HEADER } from '../correlation/correlation-id.js';
import { localeFromAcceptLanguage } from '../i18n/accept-language.js';
import { localizeErrorBody } from '../i18n/localize-error.js';
import { toHttpError } from './http-error.mapping.js';

/**
 * Fastify's router rejects some requests before any hook runs (a malformed URL: FST_ERR_BAD_URL, an
 * over-long parameter). Those never reach Nest's filters, so they get the same shape, correlation id
 * and access-log line here.
 */
export function frameworkErrorHandler(logger: Logger) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const ctx = { correlationId: correlationIdFrom(request.headers[REQUEST_ID_HEADER]) };
    const { status, body, internal } = toHttpError(error);
    runWithContext(ctx, () => {
      if (internal !== undefined) logger.error({ err: internal }, 'unhandled framework error');
      logger.debug({ method: request.method, url: request.url, status, ms: 0 }, 'request');
    });
    void reply.header(REQUEST_ID_HEADER, ctx.correlationId).code(status).send(localizeErrorBody(body, localeFromAcceptLanguage(request.headers['accept-language'], 'en')));
  };
}
