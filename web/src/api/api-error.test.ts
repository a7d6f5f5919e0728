import { describe, expect, it } from 'vitest';
import { ApiError, apiErrorFrom, describeError } from './api-error';

describe('API error mapping', () => {
  it('keeps the field errors of a 422 for the form', () => {
    const e = apiErrorFrom(422, { message: 'The name field is required. (and 1 more error)', errors: { name: ['The name field is required.'], 'assetable.id': ['The id must be positive.'] } });
    expect(e.kind).toBe('validation');
    expect(e.fieldErrors).toEqual({ name: ['The name field is required.'], 'assetable.id': ['The id must be positive.'] });
    expect(describeError(e, 'en')).toBe('The name field is required. (and 1 more error)');
  });

  it('tells the plan gate from other 403s', () => {
    expect(apiErrorFrom(403, { message: 'Your plan allows 3 active notifications.', code: 'plan_required' }).kind).toBe('plan_required');
    expect(describeError(apiErrorFrom(403, { message: 'Your plan allows 3 active notifications.', code: 'plan_required' }), 'en')).toBe(
      'Your plan allows 3 active notifications.',
    );
    // The gateway already wrote it in the page's language: shown as it is, with no English after a Russian prefix.
    const ru = 'На вашем тарифе можно держать включёнными не больше 3 уведомлений. Выключите одно из них или перейдите на платный тариф.';
    expect(describeError(apiErrorFrom(403, { message: ru, code: 'plan_required' }), 'ru')).toBe(ru);
    expect(apiErrorFrom(403, { message: 'This action is unauthorized.' }).kind).toBe('forbidden');
  });

  it('gives clear fixed texts for 401 and 503 in both locales', () => {
    expect(describeError(apiErrorFrom(401, { message: 'Unauthenticated.' }), 'en')).toMatch(/sign in/i);
    expect(describeError(apiErrorFrom(401, { message: 'Unauthenticated.' }), 'ru')).toMatch(/войти/);
    expect(describeError(apiErrorFrom(503, { message: 'x', outcome: 'not_done' }), 'en')).toMatch(/temporarily unavailable/);
    expect(describeError(apiErrorFrom(503, { message: 'x', outcome: 'unknown' }), 'en')).toMatch(/may have been done/);
  });

  it('says when a 429 limit resets, from the body or Retry-After', () => {
    const fromBody = apiErrorFrom(429, { message: 'Limit', resets_at: '2026-11-23T00:00:00Z' });
    expect(fromBody.kind).toBe('rate_limited');
    expect(fromBody.resetsAt).toBe('2026-11-23T00:00:00Z');
    expect(describeError(fromBody, 'en')).toMatch(/^Limit reached\. Try again after /);
    const fromHeader = apiErrorFrom(429, {}, '60', Date.parse('2026-11-22T10:00:00Z'));
    expect(fromHeader.resetsAt).toBe('2026-11-22T10:01:00.000Z');
    expect(describeError(apiErrorFrom(429, undefined), 'ru')).toMatch(/Слишком много запросов/);
  });

  it('survives bodies that are not the Laravel shape', () => {
    const e = apiErrorFrom(500, '<html>');
    expect(e).toBeInstanceOf(ApiError);
    expect(e.kind).toBe('server');
    expect(e.message).toBe('HTTP 500');
    expect(apiErrorFrom(422, { errors: { a: 'one', b: [1, 'two'] } }).fieldErrors).toEqual({ a: ['one'], b: ['two'] });
  });

  it('names a failed connection and an unknown throwable', () => {
    expect(describeError(new ApiError(0, 'network', 'Failed to fetch'), 'en')).toMatch(/No connection/);
    expect(describeError(new Error('boom'), 'en')).toMatch(/Server error/);
  });
});
