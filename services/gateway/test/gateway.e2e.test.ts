/**
 * The gateway over real NATS against a stub screener (a real Nest NATS microservice whose handlers
 * echo what they receive or fail on demand): error shapes end to end, identity and correlation
 * forwarding, /ready, OpenAPI, Fastify's own errors. The real screener is covered by screener.e2e.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Controller, type INestMicroservice, Module } from '@nestjs/common';
import { Ctx, MessagePattern, type NatsContext, Payload } from '@nestjs/microservices';
import { CORRELATION_HEADER, ErrorCode, type RequestMeta, type RpcRequest, Subjects } from '@invest/contracts';
import { createHealthController, createLogger, ServiceError, startRpcService } from '@invest/platform';
import { testNatsUrl, uniqueName } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintDevToken } from '../src/auth/dev-token.js';
import { createGatewayApp, type GatewayApp } from '../src/gateway.app.js';

const SECRET = 'gateway-e2e-secret-0123456789-0123456789';
const RPC_TIMEOUT_MS = 400;

interface Seen {
  meta: RequestMeta;
  header: string | undefined;
  data: Record<string, unknown>;
}
const seen: Seen[] = [];

@Controller()
class StubScreenerController {
  @MessagePattern(Subjects.screener.sharesList)
  async list(@Payload() req: RpcRequest<Record<string, unknown>>, @Ctx() ctx: NatsContext) {
    const header = (ctx.getHeaders() as { get(k: string): string } | undefined)?.get(CORRELATION_HEADER) || undefined;
    seen.push({ meta: req.meta, header, data: req.data });
    switch (req.data.search) {
      case 'rate':
        throw new ServiceError(ErrorCode.RateLimited, 'Too many screener requests.', undefined, { limit: 60, resets_at: '2026-11-21T10:00:00Z', secret: 'x' });
      case 'plan':
        throw new ServiceError(ErrorCode.PlanRequired, 'A paid plan is required.');
      case 'forbidden':
        throw new ServiceError(ErrorCode.Forbidden, 'Not allowed.');
      case 'missing':
        throw ServiceError.notFound('Share');
      case 'conflict':
        throw ServiceError.conflict('Already there.');
      case 'invalid':
        throw ServiceError.validation({ search: ['The search is odd.'] });
      case 'crash':
        throw new Error('connection to db-primary.internal:5432 refused, password hunter2');
      case 'slow':
        await sleep(RPC_TIMEOUT_MS * 4);
        return { data: [], meta: {} };
    }
    const total = 45;
    const { page, per_page } = req.data as { page: number; per_page: number };
    return {
      data: [{ echo: req.data }],
      meta: { current_page: page, per_page, total, last_page: Math.ceil(total / per_page), from: 1, to: 1 },
    };
  }

  @MessagePattern(Subjects.screener.categoriesList)
  categories() {
    return { data: [{ id: 1, slug: 'ordinary', name: 'Ordinary', shares_count: 3 }] };
  }
}

@Module({ controllers: [StubScreenerController, createHealthController('screener')] })
class StubScreenerModule {}

let stub: INestMicroservice;
let gw: GatewayApp;
let base: string;
const gatewayLog: string[] = [];
const busPrefix = `${uniqueName('gwe2e')}.`;

beforeAll(async () => {
  stub = await startRpcService(StubScreenerModule, { name: 'screener', natsUrl: testNatsUrl(), logger: createLogger('stub', 'silent'), busPrefix });
  gw = await createGatewayApp({
    natsUrl: testNatsUrl(),
    busPrefix,
    auth: { jwtSecret: SECRET },
    rpcTimeoutMs: RPC_TIMEOUT_MS,
    readyServices: ['screener'],
    readyTimeoutMs: 300,
    bodyLimitBytes: 1024,
    // Every request here must reach the stub; the public page cache has its own tests (screener-cache.e2e.test.ts).
    publicScreenerCache: { ttlMs: 0 },
    logger: createLogger('gateway', 'debug', { write: (s: string) => void gatewayLog.push(s) }),
  });
  base = await gw.listen(0, '127.0.0.1');
});

afterAll(async () => {
  await gw?.close();
  await stub?.close();
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(base + path, { headers });
const json = async (res: Response) => (await res.json()) as Record<string, unknown>;
const logLines = () => gatewayLog.map((l) => JSON.parse(l) as Record<string, unknown>);

describe('errors from a service, mapped at the edge', () => {
  const cases: [string, number, Record<string, unknown>][] = [
    ['rate', 429, { message: 'Too many screener requests.', limit: 60, resets_at: '2026-11-21T10:00:00Z' }],
    ['plan', 403, { message: 'A paid plan is required.', code: 'plan_required' }],
    ['forbidden', 403, { message: 'Not allowed.' }],
    ['missing', 404, { message: 'Share not found.' }],
    ['conflict', 409, { message: 'Already there.' }],
    ['invalid', 422, { message: 'The search is odd.', errors: { search: ['The search is odd.'] } }],
    ['crash', 500, { message: 'Server Error' }],
  ];
  for (const [search, status, body] of cases) {
    it(`${search} -> ${status}`, async () => {
      const res = await get(`/api/public/shares?search=${search}`);
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual(body);
    });
  }

  it('a service that does not answer in time -> 503 after about RPC_TIMEOUT_MS', async () => {
    const started = performance.now();
    const res = await get('/api/public/shares?search=slow');
    const ms = performance.now() - started;
    expect(res.status).toBe(503);
    // A read: whatever the service does later, nothing was done.
    expect(await json(res)).toEqual({ message: expect.any(String), outcome: 'not_done' });
    expect(ms).toBeGreaterThanOrEqual(RPC_TIMEOUT_MS - 20);
    expect(ms).toBeLessThan(RPC_TIMEOUT_MS + 1500);
  });

  it('an internal error is logged with its correlation id, but never sent', async () => {
    const res = await get('/api/public/shares?search=crash', { 'x-request-id': 'crash-check-0001' });
    const text = await res.text();
    expect(text).toBe('{"message":"Server Error"}');
    // The service logs its own error; the gateway only knows the reply was an internal error.
    const line = logLines().find((l) => l.correlationId === 'crash-check-0001' && l.level === 'error');
    expect(line).toBeDefined();
  });
});

describe('identity and correlation reach the service', () => {
  it('forwards the X-Request-Id as meta.correlationId and the NATS header, and echoes it', async () => {
    const res = await get('/api/public/shares', { 'x-request-id': 'client-req-12345' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('client-req-12345');
    const last = seen.at(-1)!;
    expect(last.meta.correlationId).toBe('client-req-12345');
    expect(last.header).toBe('client-req-12345');
    expect(last.meta.userId).toBeUndefined();
  });

  it('creates a correlation id when none or an unsafe one is given', async () => {
    for (const headers of [{}, { 'x-request-id': 'bad id with spaces' }] as Record<string, string>[]) {
      const res = await get('/api/public/shares', headers);
      const id = res.headers.get('x-request-id')!;
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(seen.at(-1)!.meta.correlationId).toBe(id);
    }
  });

  it('an authenticated request carries the user id (token sub) in meta.userId and in the access log', async () => {
    const token = await mintDevToken('user-77', SECRET);
    const res = await get('/api/shares?per_page=5', { authorization: `Bearer ${token}`, 'x-request-id': 'auth-req-000001' });
    expect(res.status).toBe(200);
    expect(seen.at(-1)!.meta).toEqual({ correlationId: 'auth-req-000001', userId: 'user-77', deadline: expect.any(Number) });
    const access = logLines().find((l) => l.correlationId === 'auth-req-000001' && l.msg === 'request');
    expect(access).toMatchObject({ method: 'GET', url: '/api/shares?per_page=5', status: 200, userId: 'user-77' });
    expect(typeof access!.ms).toBe('number');
  });

  it('a token sent in the query string is refused and never logged', async () => {
    const token = await mintDevToken('user-78', SECRET);
    const res = await get(`/api/shares?per_page=5&token=${token}&Access_Token=${token}&jwt=${token}&api_key=k-123456&signature=s-123456`, { 'x-request-id': 'url-token-000001' });
    expect(res.status).toBe(401);
    const lines = gatewayLog.filter((l) => l.includes('url-token-000001'));
    expect(lines.length).toBeGreaterThan(0);
    for (const secret of [token, 'k-123456', 's-123456']) expect(lines.join('\n')).not.toContain(secret);
    const access = logLines().find((l) => l.correlationId === 'url-token-000001' && l.msg === 'request');
    expect(access?.url).toBe('/api/shares?per_page=5&token=[redacted]&Access_Token=[redacted]&jwt=[redacted]&api_key=[redacted]&signature=[redacted]');
  });

  it('concurrent requests keep their own contexts', async () => {
    const ids = Array.from({ length: 20 }, (_, i) => `concurrent-${String(i).padStart(4, '0')}`);
    const tokens = await Promise.all(ids.map((_, i) => mintDevToken(`u${i}`, SECRET)));
    seen.length = 0;
    await Promise.all(ids.map((id, i) => get(`/api/shares?search=q${i}`, { 'x-request-id': id, authorization: `Bearer ${tokens[i]}` })));
    for (const s of seen) {
      const i = Number(String(s.data.search).slice(1));
      expect(s.meta).toEqual({ correlationId: ids[i], userId: `u${i}`, deadline: expect.any(Number) });
    }
    expect(seen).toHaveLength(20);
  });

  it('sends the parsed query (defaults applied) to the service', async () => {
    await get('/api/public/shares?country_code=ru&category=Preferred');
    expect(seen.at(-1)!.data).toMatchObject({ page: 1, per_page: 20, sort: 'market_cap', direction: 'desc', country_code: 'RU', category: 'preferred' });
  });
});

describe('paging links over the wire', () => {
  it('adds links that keep the other parameters', async () => {
    const res = await get('/api/public/shares?per_page=10&page=2&sort=dividend_yield');
    const body = (await res.json()) as { links: Record<string, string | null>; meta: Record<string, number> };
    expect(body.meta).toMatchObject({ current_page: 2, last_page: 5 });
    const q = (u: string | null | undefined) => Object.fromEntries(new URL(u!, base).searchParams);
    expect(q(body.links.prev)).toEqual({ per_page: '10', page: '1', sort: 'dividend_yield' });
    expect(q(body.links.next)).toEqual({ per_page: '10', page: '3', sort: 'dividend_yield' });
    expect(q(body.links.last)).toEqual({ per_page: '10', page: '5', sort: 'dividend_yield' });
  });
});

describe("Fastify's own errors and unknown routes", () => {
  it('unknown route -> 404 {message}', async () => {
    const res = await get('/api/nope');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: 'Not Found.' });
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('malformed URL (rejected by the router before any hook) -> 400 {message} with a request id', async () => {
    const res = await get('/api/public/shares/%zz', { 'x-request-id': 'bad-url-000001' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ message: 'The URL is malformed.' });
    expect(res.headers.get('x-request-id')).toBe('bad-url-000001');
    expect(logLines().some((l) => l.correlationId === 'bad-url-000001' && l.msg === 'request' && l.status === 400)).toBe(true);
  });

  it('malformed JSON body -> 400 {message}', async () => {
    const res = await fetch(`${base}/api/public/shares`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ message: 'The request body is not valid JSON.' });
  });

  it('a body that is not UTF-8 -> 400 {message}', async () => {
    const body = Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const res = await fetch(`${base}/api/public/shares`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ message: 'The request body is not valid UTF-8.' });
  });

  it('body over the limit -> 413 {message}', async () => {
    const res = await fetch(`${base}/api/public/shares`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ x: 'y'.repeat(5000) }) });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ message: 'The request body is too large.' });
  });
});

describe('/health, /ready, OpenAPI', () => {
  it('/health answers while the process is up', async () => {
    const res = await get('/health');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('/ready is 200 when NATS and the screener answer', async () => {
    const res = await get('/ready');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', checks: { nats: 'ok', screener: 'ok' } });
  });

  it('/ready is 503 naming a service that does not answer', async () => {
    const other = await createGatewayApp({
      natsUrl: testNatsUrl(),
      busPrefix,
      auth: { jwtSecret: SECRET },
      readyServices: ['screener', 'alerts'],
      readyTimeoutMs: 300,
      logger: createLogger('gateway', 'silent'),
    });
    try {
      const started = performance.now();
      const res = await other.app.inject({ method: 'GET', url: '/ready' });
      expect(performance.now() - started).toBeLessThan(2000);
      expect(res.statusCode).toBe(503);
      const body = res.json() as { message: string; failed: string[]; checks: Record<string, string> };
      expect(body.failed).toEqual(['alerts']);
      expect(body.checks.screener).toBe('ok');
      expect(body.checks.nats).toBe('ok');
      expect(body.message).toMatch(/alerts/);
    } finally {
      await other.close();
    }
  });

  it('/ready is 503 naming NATS when it cannot be reached', async () => {
    const other = await createGatewayApp({
      natsUrl: 'nats://127.0.0.1:1',
      auth: { jwtSecret: SECRET },
      readyServices: ['screener'],
      readyTimeoutMs: 300,
      logger: createLogger('gateway', 'silent'),
    });
    try {
      const res = await other.app.inject({ method: 'GET', url: '/ready' });
      expect(res.statusCode).toBe(503);
      const body = res.json() as { failed: string[] };
      expect(body.failed).toContain('nats');
      // The edge itself is alive, and routes answer 503 rather than hanging.
      expect((await other.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
      const shares = await other.app.inject({ method: 'GET', url: '/api/public/shares' });
      expect(shares.statusCode).toBe(503);
    } finally {
      await other.close();
    }
  });

  it('serves the OpenAPI document covering every route, and the UI', async () => {
    type Operation = { parameters?: { name: string; in: string }[]; responses: Record<string, unknown>; security?: unknown[] };
    const doc = (await (await get('/api/docs-json')).json()) as { paths: Record<string, Record<string, Operation>> };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/public/shares', '/api/public/shares/categories', '/api/public/shares/countries', '/api/shares', '/health', '/ready']),
    );
    // Every route Nest mapped (from its own start-up log) has a documented operation with a success response.
    const mapped = logLines()
      .map((l) => /^Mapped \{(.+), (\w+)\} route$/.exec(String(l.msg)))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ path: m[1]!.replace(/:(\w+)/g, '{$1}'), method: m[2]!.toLowerCase() }));
    expect(mapped.length).toBeGreaterThanOrEqual(6);
    for (const { path, method } of mapped) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method.toUpperCase()} ${path} is documented`).toBeDefined();
      expect(Object.keys(op!.responses).some((s) => /^2\d\d$/.test(s)), `${method.toUpperCase()} ${path} documents its success`).toBe(true);
    }
    const list = doc.paths['/api/public/shares']!.get!;
    expect(list.parameters!.filter((p) => p.in === 'query').map((p) => p.name).sort()).toEqual([
      'category',
      'country_code',
      'direction',
      'dividend_yield_max',
      'dividend_yield_min',
      'market_cap_max',
      'market_cap_min',
      'page',
      'per_page',
      'search',
      'sort',
    ]);
    expect(list.parameters!.filter((p) => p.in === 'header').map((p) => p.name)).toEqual(['If-None-Match']);
    expect(Object.keys(list.responses)).toEqual(expect.arrayContaining(['200', '304', '422', '503']));
    expect(doc.paths['/api/shares']!.get!.security).toBeDefined();
    expect(Object.keys(doc.paths['/api/shares']!.get!.responses)).toContain('401');
    const ui = await get('/api/docs');
    expect(ui.status).toBe(200);
    expect(await ui.text()).toMatch(/swagger-ui/i);
    const css = await get('/api/docs/swagger-ui.css');
    expect(css.status).toBe(200);
    expect(await css.text()).toMatch(/swagger-ui/);
  });
});
