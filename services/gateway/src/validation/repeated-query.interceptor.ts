import type { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import { ServiceError } from '@invest/platform';
import type { Observable } from 'rxjs';
import { RAW_BODY_PATH_PREFIX } from '../billing/provider-webhooks.controller.js';
import { repeatedQueryErrors } from './request-input.js';

/** A provider's notifications (a 422 before their signature is checked would only be retried) and the probes. */
const exempt = (url: string) => url.startsWith(RAW_BODY_PATH_PREFIX) || /^\/(?:health|ready)(?:[?/]|$)/.test(url);

/**
 * A query parameter given twice is a 422 under its name on every route, also where the route reads no query
 * (`GET /api/watchlists?page=1&page=2`): which value was meant cannot be known, and a route that reads one
 * later must not change what such a request means. Routes that read their query say it again (parseQuery).
 */
export class RepeatedQueryInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.getType() === 'http' ? context.switchToHttp().getRequest<{ query?: unknown; url?: string }>() : undefined;
    const query = request?.query ?? {};
    if (request && !exempt(request.url ?? '') && query !== null && typeof query === 'object') {
      const repeated = repeatedQueryErrors(query as Record<string, unknown>);
      if (Object.keys(repeated).length > 0) throw ServiceError.validation(repeated);
    }
    return next.handle();
  }
}
