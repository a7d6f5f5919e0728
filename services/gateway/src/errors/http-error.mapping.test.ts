import { BadRequestException, HttpException, NotFoundException, UnauthorizedException } from '@nestjs/common';
import { ErrorCode, RequestOutcome } from '@invest/contracts';
import { ServiceError } from '@invest/platform/rpc/service-error';
import { describe, expect, it } from 'vitest';
import { STATUS_BY_CODE, toHttpError } from './http-error.mapping.js';

describe('toHttpError', () => {
  it('maps every ErrorCode to a status', () => {
    const expected: Record<string, number> = {
      validation_failed: 422,
      unauthenticated: 401,
      forbidden: 403,
      plan_required: 403,
      not_found: 404,
      conflict: 409,
      rate_limited: 429,
      unavailable: 503,
      internal: 500,
    };
    for (const code of Object.values(ErrorCode)) {
      expect(STATUS_BY_CODE[code], code).toBe(expected[code]);
      expect(toHttpError(new ServiceError(code, 'x')).status, code).toBe(expected[code]);
    }
  });

  it('422 carries the field errors', () => {
    const { status, body } = toHttpError(ServiceError.validation({ per_page: ['The per page may not be greater than 100.'] }));
    expect(status).toBe(422);
    expect(body).toEqual({ message: 'The per page may not be greater than 100.', errors: { per_page: ['The per page may not be greater than 100.'] } });
  });

  it('403 plan gate adds code plan_required; plain 403 does not', () => {
    expect(toHttpError(new ServiceError(ErrorCode.PlanRequired, 'Upgrade to use portfolio alerts.')).body).toEqual({
      message: 'Upgrade to use portfolio alerts.',
      code: 'plan_required',
    });
    expect(toHttpError(new ServiceError(ErrorCode.Forbidden, 'Not yours.')).body).toEqual({ message: 'Not yours.' });
  });

  it('403 plan gate carries the limit from extra, and nothing else from it', () => {
    const e = new ServiceError(ErrorCode.PlanRequired, 'Your plan allows 3 active notifications.', undefined, { limit: { active_notifications: 3 }, secret: 'x' });
    expect(toHttpError(e)).toEqual({ status: 403, body: { message: 'Your plan allows 3 active notifications.', code: 'plan_required', limit: { active_notifications: 3 } } });
  });

  it('429 carries limit and resets_at from extra, and nothing else from it', () => {
    const e = new ServiceError(ErrorCode.RateLimited, 'Daily free messages used up.', undefined, {
      limit: 5,
      resets_at: '2026-11-22T00:00:00+03:00',
      internal_counter: 17,
    });
    expect(toHttpError(e)).toEqual({
      status: 429,
      body: { message: 'Daily free messages used up.', limit: 5, resets_at: '2026-11-22T00:00:00+03:00' },
    });
  });

  it('429 names the limit when the service says which (`code`)', () => {
    const e = new ServiceError(ErrorCode.RateLimited, 'Your daily token budget of 1000 tokens is used up.', undefined, { code: 'token_budget', limit: 1000, resets_at: '2026-11-21T21:00:00.000Z' });
    expect(toHttpError(e)).toEqual({
      status: 429,
      body: { message: 'Your daily token budget of 1000 tokens is used up.', code: 'token_budget', limit: 1000, resets_at: '2026-11-21T21:00:00.000Z' },
    });
  });

  it('404 and 409 keep the service message', () => {
    expect(toHttpError(ServiceError.notFound('Notification'))).toEqual({ status: 404, body: { message: 'Notification not found.' } });
    expect(toHttpError(ServiceError.conflict('An active subscription exists.'))).toEqual({
      status: 409,
      body: { message: 'An active subscription exists.' },
    });
  });

  it('409 of a request still running with the same Idempotency-Key carries Retry-After from extra.retry_after', () => {
    const e = ServiceError.conflict('A request with this Idempotency-Key is still being processed; retry it shortly.', { retry_after: 1 });
    expect(toHttpError(e)).toEqual({
      status: 409,
      body: { message: 'A request with this Idempotency-Key is still being processed; retry it shortly.' },
      headers: { 'retry-after': '1' },
    });
    // Only a whole number of seconds becomes the header.
    for (const retry_after of [0, -1, 1.5, '1', null]) expect(toHttpError(ServiceError.conflict('x', { retry_after })).headers).toBeUndefined();
  });

  it('503 hides which service failed but hands the cause to the log', () => {
    const e = ServiceError.unavailable('The screener service did not answer within 3000 ms.');
    const r = toHttpError(e);
    expect(r.status).toBe(503);
    expect(r.body.message).not.toMatch(/screener|3000/);
    expect(Object.keys(r.body)).toEqual(['message', 'outcome']);
    expect(r.internal).toBe(e);
  });

  it('503 says whether the outcome is unknown: a write the service did not answer in time may have been carried out', () => {
    const timedOut = ServiceError.unavailable('The portfolios service did not answer within 3000 ms.', RequestOutcome.Unknown);
    expect(toHttpError(timedOut, { method: 'POST' }).body).toMatchObject({ outcome: 'unknown', message: expect.stringMatching(/Idempotency-Key/) });
    expect(toHttpError(timedOut, { method: 'DELETE' }).body.outcome).toBe('unknown');
    // A read changed nothing whatever happened; a service that refused (deadline passed) or nobody listening: nothing done.
    expect(toHttpError(timedOut, { method: 'GET' }).body.outcome).toBe('not_done');
    expect(toHttpError(ServiceError.unavailable('late', RequestOutcome.NotDone), { method: 'POST' }).body.outcome).toBe('not_done');
    expect(toHttpError(ServiceError.unavailable('no responders'), { method: 'POST' }).body.outcome).toBe('not_done');
  });

  it('unknown errors become a bare 500 that reveals nothing', () => {
    const boom = new TypeError("Cannot read properties of undefined (reading 'rows') at /srv/app.js:12");
    const r = toHttpError(boom);
    expect(r).toEqual({ status: 500, body: { message: 'Server Error' }, internal: boom });
    expect(toHttpError('a string').body).toEqual({ message: 'Server Error' });
    expect(toHttpError(new ServiceError(ErrorCode.Internal, 'db password wrong')).body).toEqual({ message: 'Server Error' });
    expect(toHttpError(new HttpException('secret detail', 502)).body).toEqual({ message: 'Server Error' });
  });

  it('Nest HTTP exceptions keep their status in the same shape', () => {
    expect(toHttpError(new NotFoundException('Cannot GET /nope'))).toEqual({ status: 404, body: { message: 'Not Found.' } });
    expect(toHttpError(new UnauthorizedException('Unauthenticated.'))).toEqual({ status: 401, body: { message: 'Unauthenticated.' } });
    expect(toHttpError(new BadRequestException('Bad thing.'))).toEqual({ status: 400, body: { message: 'Bad thing.' } });
  });

  it("Fastify's own errors (wrapped by the adapter or raw) get fixed messages", () => {
    const fst = (code: string, statusCode: number) => Object.assign(new Error(`fastify says ${code}`), { name: 'FastifyError', code, statusCode });
    const wrapped = (e: Error & { statusCode: number }) => new HttpException(e.message, e.statusCode, { cause: e });
    const bad = fst('FST_ERR_CTP_INVALID_JSON_BODY', 400);
    expect(toHttpError(wrapped(bad))).toEqual({ status: 400, body: { message: 'The request body is not valid JSON.' } });
    expect(toHttpError(bad)).toEqual({ status: 400, body: { message: 'The request body is not valid JSON.' } });
    expect(toHttpError(wrapped(fst('FST_ERR_CTP_BODY_TOO_LARGE', 413)))).toEqual({ status: 413, body: { message: 'The request body is too large.' } });
    expect(toHttpError(wrapped(fst('FST_ERR_CTP_INVALID_MEDIA_TYPE', 415))).status).toBe(415);
    expect(toHttpError(fst('FST_ERR_SOMETHING_NEW', 400)).body).toEqual({ message: 'Bad Request.' });
    // find-my-way's path parameter over maxParamLength.
    expect(toHttpError(Object.assign(new Error('URI Too Long'), { statusCode: 414 }))).toEqual({ status: 414, body: { message: 'The URL is too long.' } });
  });
});
