import {
  addWatchlistItemBodySchema,
  createCustomAssetRequestSchema,
  createDealBodySchema,
  createPortfolioRequestSchema,
  listSharesQuerySchema,
  pageQuerySchema,
  updateCustomAssetBodySchema,
  updatePortfolioBodySchema,
} from '@invest/contracts';
import { ServiceError } from '@invest/platform/rpc/service-error';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contentTypeCharset } from './request-charset.hook.js';
import { parseBody, parseQuery, unstorableTextErrors } from './request-input.js';

/** The field errors of a 422, or a failure when the input passed. */
function errorsOf(fn: () => unknown): Record<string, string[]> {
  try {
    fn();
  } catch (err) {
    if (err instanceof ServiceError) return err.errors ?? {};
    throw err;
  }
  throw new Error('expected a 422');
}
const allMessages = (errors: Record<string, string[]>) => Object.values(errors).flat();

describe('parseBody: Laravel messages under each field', () => {
  it('a missing field is "required", even where the schema wrote a type message', () => {
    expect(errorsOf(() => parseBody(createCustomAssetRequestSchema, { currency: 'RUB', price: 1 }))).toEqual({ name: ['The name field is required.'] });
    expect(errorsOf(() => parseBody(createPortfolioRequestSchema, { currency_code: 'RUB' }))).toEqual({ name: ['The name field is required.'] });
    expect(errorsOf(() => parseBody(createPortfolioRequestSchema, {}))).toEqual({
      name: ['The name field is required.'],
      currency_code: ['The currency code field is required.'],
    });
    // No body at all: every required field is named.
    expect(Object.keys(errorsOf(() => parseBody(createPortfolioRequestSchema, undefined)))).toEqual(['name', 'currency_code']);
  });

  it("never shows the validation library's wording", () => {
    const cases: [z.ZodType, unknown][] = [
      [createDealBodySchema, { type: 'buy', assetable: 'SBER', quantity: 1, price: 1, date: '2024-01-01' }],
      [createDealBodySchema, { type: 'buy', assetable: [1], quantity: {}, price: [], date: 5 }],
      [addWatchlistItemBodySchema, { assetable: { type: 'share' } }],
      [createCustomAssetRequestSchema, { name: {}, currency: 7, price: 'abc', description: [] }],
      [z.object({ tags: z.array(z.string()).max(1), n: z.number().int().min(2), s: z.string().min(3) }).strict(), { tags: ['a', 'b'], n: 1.5, s: 'x', extra: 1 }],
    ];
    for (const [schema, body] of cases) {
      const errors = errorsOf(() => parseBody(schema, body));
      for (const message of allMessages(errors)) {
        expect(message, JSON.stringify(body)).toMatch(/^The /);
        expect(message).not.toMatch(/Invalid input|expected|received|Too (big|small)/);
      }
    }
  });

  it('generated messages follow Laravel', () => {
    const schema = z.object({ tags: z.array(z.string()).max(1), n: z.number().int().min(2), s: z.string().min(3), o: z.object({ k: z.string() }) }).strict();
    expect(errorsOf(() => parseBody(schema, { tags: ['a', 'b'], n: 1, s: 'x', o: 'str', extra: 1 }))).toEqual({
      tags: ['The tags field must not have more than 1 items.'],
      n: ['The n field must be at least 2.'],
      s: ['The s field must be at least 3 characters.'],
      o: ['The o field must be an object.'],
      extra: ['The extra field is not allowed.'],
    });
    expect(errorsOf(() => parseBody(schema, { tags: [], n: 2.5, s: 'xyz', o: {} }))).toEqual({
      n: ['The n field must be an integer.'],
      'o.k': ['The o.k field is required.'],
    });
    expect(errorsOf(() => parseBody(addWatchlistItemBodySchema, { assetable: 'SBER' }))).toEqual({ assetable: ['The assetable field must be an object.'] });
  });

  it('a body that is JSON but not an object is an error under body', () => {
    for (const body of ['a string', 42, null, [{ name: 'x' }], true]) {
      expect(errorsOf(() => parseBody(createPortfolioRequestSchema, body)), JSON.stringify(body)).toEqual({ body: ['The request body must be a JSON object.'] });
    }
  });

  it('an empty PATCH names the fields that may be given, under body', () => {
    expect(errorsOf(() => parseBody(updateCustomAssetBodySchema, {}))).toEqual({
      body: ['The request body must give at least one of: name, ticker, currency, price, description.'],
    });
    expect(errorsOf(() => parseBody(updatePortfolioBodySchema, {}))).toEqual({ body: ['The request body must give at least one of: name, currency_code.'] });
  });

  it('refuses NUL and unpaired surrogates in any string, under the field', () => {
    for (const name of ['a\u0000b', 'a\ud800', 'a\udc00b', '\ud800\ud800']) {
      const errors = errorsOf(() => parseBody(createCustomAssetRequestSchema, { name, currency: 'RUB', price: 1 }));
      expect(Object.keys(errors), JSON.stringify(name)).toEqual(['name']);
    }
    // Nested and unknown fields too: nothing the gateway forwards carries them.
    expect(errorsOf(() => parseBody(z.object({}).passthrough(), { a: { b: ['ok', 'x\ud83d'] } }))).toEqual({
      'a.b.1': ['The a.b.1 field must be valid Unicode text (it has an unpaired surrogate).'],
    });
    expect(errorsOf(() => parseBody(z.object({}).passthrough(), { 'k\u0000': 1 }))).toEqual({ body: ['The request body has a key that must not contain NUL characters.'] });
    // A well-formed pair (an emoji) is text like any other.
    expect(parseBody(createCustomAssetRequestSchema, { name: 'flat 🏠', currency: 'RUB', price: 1 }).name).toBe('flat 🏠');
  });

  it('walks a deeply nested body without overflowing the stack', () => {
    let deep: unknown = 'x\u0000';
    for (let i = 0; i < 100_000; i += 1) deep = [deep];
    expect(Object.keys(unstorableTextErrors(deep, 'body'))).toHaveLength(1);
  });
});

describe('parseQuery', () => {
  it('paging is decimal digits only', () => {
    for (const page of ['0x10', '1e3', '+1', ' 1', '1 ', '1.0', '-1', '١']) {
      expect(errorsOf(() => parseQuery(pageQuerySchema, { page })), page).toEqual({ page: ['The page field must be a whole number written with the digits 0-9 only.'] });
    }
    expect(errorsOf(() => parseQuery(pageQuerySchema, { per_page: '  50' }))).toEqual({
      per_page: ['The per page field must be a whole number written with the digits 0-9 only.'],
    });
    expect(parseQuery(pageQuerySchema, { page: '16', per_page: '050' })).toEqual({ page: 16, per_page: 50 });
  });

  it('says what is wrong with a number out of range', () => {
    expect(errorsOf(() => parseQuery(pageQuerySchema, { page: '0' }))).toEqual({ page: ['The page field must be at least 1.'] });
    expect(errorsOf(() => parseQuery(pageQuerySchema, { page: '10000000000000000' }))).toEqual({ page: ['The page field must not be greater than 2147483647.'] });
    expect(errorsOf(() => parseQuery(pageQuerySchema, { page: '9'.repeat(400) }))).toEqual({ page: ['The page field must not be greater than 2147483647.'] });
    expect(errorsOf(() => parseQuery(pageQuerySchema, { per_page: '101' }))).toEqual({ per_page: ['The per page field must not be greater than 100.'] });
  });

  it('an empty value means not given', () => {
    expect(parseQuery(pageQuerySchema, { page: '', per_page: '' })).toEqual({ page: 1, per_page: 20 });
  });

  it('a parameter given more than once is named, on every route', () => {
    expect(errorsOf(() => parseQuery(pageQuerySchema, { page: ['1', '2'] }))).toEqual({ page: ['The page parameter must be given only once.'] });
    expect(errorsOf(() => parseQuery(listSharesQuerySchema, { sort: ['market_cap', 'dividend_yield'], search: ['a', 'b'], direction: 'asc' }))).toEqual({
      sort: ['The sort parameter must be given only once.'],
      search: ['The search parameter must be given only once.'],
    });
  });

  it('the service parses the numbers the gateway forwards', () => {
    const forwarded = parseQuery(listSharesQuerySchema, { page: '3', per_page: '7' });
    expect(listSharesQuerySchema.parse(forwarded)).toMatchObject({ page: 3, per_page: 7 });
  });
});

describe('contentTypeCharset', () => {
  it('reads the charset parameter in any case, quoted or not', () => {
    expect(contentTypeCharset('application/json')).toBeUndefined();
    expect(contentTypeCharset(undefined)).toBeUndefined();
    expect(contentTypeCharset('application/json; charset=utf-8')).toBe('utf-8');
    expect(contentTypeCharset('application/json;Charset="Latin1"')).toBe('latin1');
    expect(contentTypeCharset('application/json; boundary=x; charset = ISO-8859-1')).toBe('iso-8859-1');
  });
});
