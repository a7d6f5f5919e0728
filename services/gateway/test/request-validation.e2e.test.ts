/**
 * Input checks at the edge, through the gateway app over real NATS against a stub screener that records what
 * reaches it: query parameters (decimal digits only, one value each, empty means not given), text that cannot be
 * stored faithfully (NUL, unpaired surrogates, a charset other than UTF-8) and the wording and keys of 422s.
 */
import { Controller, type INestMicroservice, Module } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CustomAssetSubjects, type RpcRequest, Subjects } from '@invest/contracts';
import { createHealthController, createLogger, startRpcService } from '@invest/platform';
import { testNatsUrl, uniqueName } from '@invest/platform/testing/index';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mintDevToken } from '../src/auth/dev-token.js';
import { createGatewayApp, type GatewayApp } from '../src/gateway.app.js';

const SECRET = 'request-validation-secret-0123456789-0123';

/** Every payload that reached the stub, by subject. */
const seen: { subject: string; data: Record<string, unknown> }[] = [];

@Controller()
class StubController {
  @MessagePattern(Subjects.screener.sharesList)
  list(@Payload() req: RpcRequest<Record<string, unknown>>) {
    seen.push({ subject: Subjects.screener.sharesList, data: req.data });
    const { page, per_page } = req.data as { page: number; per_page: number };
    return { data: [], meta: { current_page: page, per_page, total: 0, last_page: 1, from: null, to: null } };
  }

  @MessagePattern(Subjects.billing.providerPay)
  providerPay(@Payload() req: RpcRequest<Record<string, unknown>>) {
    seen.push({ subject: Subjects.billing.providerPay, data: req.data });
    return { code: 0 };
  }

  @MessagePattern(CustomAssetSubjects.create)
  create(@Payload() req: RpcRequest<Record<string, unknown>>) {
    seen.push({ subject: CustomAssetSubjects.create, data: req.data });
    return { data: { id: 1, ...req.data } };
  }
}

@Module({ controllers: [StubController, createHealthController('screener')] })
class StubModule {}

let stub: INestMicroservice;
let gw: GatewayApp;
let base: string;
let token: string;
const busPrefix = `${uniqueName('gwvalid')}.`;

beforeAll(async () => {
  stub = await startRpcService(StubModule, { name: 'screener', natsUrl: testNatsUrl(), logger: createLogger('stub', 'silent'), busPrefix });
  gw = await createGatewayApp({ natsUrl: testNatsUrl(), busPrefix, auth: { jwtSecret: SECRET }, readyServices: [], logger: createLogger('gateway', 'silent') });
  base = await gw.listen(0, '127.0.0.1');
  token = await mintDevToken('validator', SECRET);
});

afterAll(async () => {
  await gw?.close();
  await stub?.close();
});

beforeEach(() => {
  seen.length = 0;
});

interface Answer {
  status: number;
  body: { message?: string; errors?: Record<string, string[]>; data?: unknown };
  requestId: string | null;
}

async function call(method: string, path: string, opts: { body?: unknown; raw?: string | Buffer; contentType?: string } = {}): Promise<Answer> {
  const hasBody = opts.body !== undefined || opts.raw !== undefined;
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(hasBody ? { 'content-type': opts.contentType ?? 'application/json' } : {}) },
    ...(hasBody ? { body: opts.raw ?? JSON.stringify(opts.body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Answer['body']) : {}, requestId: res.headers.get('x-request-id') };
}

const expect422 = (a: Answer, errors: Record<string, string[]>) => {
  expect(a.status, JSON.stringify(a.body)).toBe(422);
  expect(a.body.errors).toEqual(errors);
  // Laravel's message is the first field message.
  expect(a.body.message!.startsWith(Object.values(errors)[0]![0]!)).toBe(true);
  expect(seen).toEqual([]);
};

describe('query parameters', () => {
  const digitsOnly = (name: string) => `The ${name} field must be a whole number written with the digits 0-9 only.`;

  it('paging takes decimal digits only', async () => {
    for (const q of ['page=0x10', 'page=1e3', 'page=%2B1', 'page=1e16', 'page=1.5', 'page=-1']) {
      const a = await call('GET', `/api/public/shares?${q}`);
      expect(a.status, q).toBe(422);
      expect(a.body.errors, q).toEqual({ page: [digitsOnly('page')] });
    }
    expect422(await call('GET', '/api/public/shares?per_page=%20%2050'), { per_page: [digitsOnly('per page')] });
    // The deals list shares the paging schema, and answers before anything goes on the bus.
    expect((await call('GET', '/api/portfolios/1/deals?page=0x10')).body.errors).toEqual({ page: [digitsOnly('page')] });
  });

  it('a number out of range says so', async () => {
    expect422(await call('GET', '/api/public/shares?page=10000000000000000'), { page: ['The page field must not be greater than 2147483647.'] });
    expect422(await call('GET', '/api/public/shares?page=0'), { page: ['The page field must be at least 1.'] });
  });

  it('a parameter given twice is named, on every route and for every parameter', async () => {
    expect422(await call('GET', '/api/public/shares?page=1&page=2'), { page: ['The page parameter must be given only once.'] });
    expect422(await call('GET', '/api/public/shares?sort=market_cap&sort=dividend_yield'), { sort: ['The sort parameter must be given only once.'] });
    expect422(await call('GET', '/api/shares?country_code=RU&country_code=US'), { country_code: ['The country code parameter must be given only once.'] });
    expect((await call('GET', '/api/portfolios/1/deals?per_page=5&per_page=5')).body.errors).toEqual({ per_page: ['The per page parameter must be given only once.'] });
    // Routes that read no query say so too (they answered 200, ignoring it).
    for (const path of ['/api/public/shares/categories', '/api/public/shares/countries', '/api/custom-assets', '/api/watchlists', '/api/portfolios']) {
      expect422(await call('GET', `${path}?page=1&page=2`), { page: ['The page parameter must be given only once.'] });
      expect((await call('GET', `${path}?page=1`)).status, path).not.toBe(422);
    }
    // Probes and providers' notifications are not refused for it (a provider would only retry).
    expect((await call('GET', '/health?x=1&x=2')).status).toBe(200);
    const notified = await call('POST', '/api/provider/payment-success?x=1&x=2', { raw: 'TransactionId=1', contentType: 'application/x-www-form-urlencoded' });
    expect(notified.body.errors ?? {}).not.toHaveProperty('x');
    expect(notified.status).not.toBe(404);
  });

  it('an empty value means not given', async () => {
    const a = await call('GET', '/api/public/shares?page=&per_page=&sort=');
    expect(a.status).toBe(200);
    expect(seen[0]!.data).toMatchObject({ page: 1, per_page: 20, sort: 'market_cap' });
  });

  it('plain digits still work (leading zeros too)', async () => {
    expect((await call('GET', '/api/public/shares?page=16&per_page=050')).status).toBe(200);
    expect(seen[0]!.data).toMatchObject({ page: 16, per_page: 50 });
  });
});

describe('text that cannot be stored faithfully', () => {
  it('an unpaired surrogate or NUL in any string field is a 422 under that field, and nothing is created', async () => {
    for (const name of ['a\ud800', 'a\udc00b', 'a\u0000b']) {
      const a = await call('POST', '/api/custom-assets', { body: { name, currency: 'RUB', price: 10 } });
      expect(a.status, JSON.stringify(name)).toBe(422);
      expect(Object.keys(a.body.errors!)).toEqual(['name']);
    }
    expect422(await call('POST', '/api/custom-assets', { body: { name: 'Flat', currency: 'RUB', price: 10, description: 'x\udfff' } }), {
      description: ['The description field must be valid Unicode text (it has an unpaired surrogate).'],
    });
    // Even a field the route does not know: the body is refused as a whole rather than partly trusted.
    expect422(await call('POST', '/api/watchlists', { body: { name: 'ok', note: '\u0000' } }), { note: ['The note field must not contain NUL characters.'] });
    expect(seen).toEqual([]);
  });

  it('well-formed text reaches the service as sent', async () => {
    const a = await call('POST', '/api/custom-assets', { body: { name: 'Дача 🏡', currency: 'RUB', price: 10 } });
    expect(a.status).toBe(201);
    expect(seen[0]!.data.name).toBe('Дача 🏡');
  });

  it('a body in a charset other than UTF-8 is a 415, and nothing is created', async () => {
    const latin1 = Buffer.from('{"name":"Caf\u00e9","currency":"RUB","price":10}', 'latin1');
    for (const contentType of ['application/json; charset=latin1', 'application/json; charset="ISO-8859-1"', 'application/json;charset=utf-16']) {
      const a = await call('POST', '/api/custom-assets', { raw: latin1, contentType });
      expect(a.status, contentType).toBe(415);
      expect(a.body).toEqual({ message: 'The request body must be encoded as UTF-8 (charset=utf-8).' });
      expect(a.requestId).toBeTruthy();
    }
    expect(seen).toEqual([]);
    const utf8 = await call('POST', '/api/custom-assets', { raw: '{"name":"Café","currency":"RUB","price":10}', contentType: 'application/json; charset=UTF-8' });
    expect(utf8.status).toBe(201);
    expect(seen[0]!.data.name).toBe('Café');
  });

  it('provider notifications are exempt: their bytes are forwarded undecoded, whatever the charset', async () => {
    const bytes = Buffer.from('Name=Caf\u00e9', 'latin1');
    const a = await call('POST', '/api/provider/payment-success', { raw: bytes, contentType: 'application/x-www-form-urlencoded; charset=windows-1251' });
    expect(a.status).toBe(200);
    expect(Buffer.from(String(seen[0]!.data.body), 'base64').equals(bytes)).toBe(true);
  });
});

describe('422 wording and keys', () => {
  it('a missing field is required, under its own name', async () => {
    expect422(await call('POST', '/api/custom-assets', { body: { currency: 'RUB', price: 10 } }), { name: ['The name field is required.'] });
    expect422(await call('POST', '/api/portfolios', { body: { name: 'Main' } }), { currency_code: ['The currency code field is required.'] });
  });

  it('a field of the wrong type says which type it must be', async () => {
    expect422(await call('POST', '/api/custom-assets', { body: { name: 5, currency: 'RUB', price: 10 } }), { name: ['The name field must be a string.'] });
    expect422(await call('POST', '/api/watchlists', { body: { name: null } }), { name: ['The name field must be a string.'] });
  });

  it("no message carries the validation library's wording", async () => {
    const bodies: [string, unknown][] = [
      ['/api/portfolios/1/deals', { type: 'buy', assetable: 'SBER', quantity: 1, price: 1, date: '2024-01-01' }],
      ['/api/watchlists/1/items', { assetable: { type: 'share', id: [] } }],
      ['/api/custom-assets', { name: {}, currency: 7, price: 'abc', description: [] }],
    ];
    for (const [path, body] of bodies) {
      const a = await call('POST', path, { body });
      expect(a.status, path).toBe(422);
      for (const [field, messages] of Object.entries(a.body.errors!)) {
        for (const m of messages) expect(m, `${path} ${field}`).toMatch(/^The /);
        for (const m of messages) expect(m, `${path} ${field}`).not.toMatch(/Invalid input|expected|received/);
      }
    }
    expect((await call('POST', '/api/portfolios/1/deals', { body: bodies[0]![1] })).body.errors!.assetable).toEqual(['The assetable field must be an object.']);
  });

  it('a body that is not an object is reported under body', async () => {
    expect422(await call('POST', '/api/custom-assets', { body: 'Flat' }), { body: ['The request body must be a JSON object.'] });
    expect422(await call('POST', '/api/portfolios', { body: [{ name: 'x' }] }), { body: ['The request body must be a JSON object.'] });
  });

  it('an empty PATCH names the fields that may be given, under body (not `_`)', async () => {
    expect422(await call('PATCH', '/api/custom-assets/1', { body: {} }), {
      body: ['The request body must give at least one of: name, ticker, currency, price, description.'],
    });
    expect422(await call('PATCH', '/api/portfolios/1', { body: {} }), { body: ['The request body must give at least one of: name, currency_code.'] });
  });
});
