/**
 * The token rules (docs/decisions/0014-token-rules.md) through HTTP on the real stack: a `sub` that
 * Postgres cannot store, or that would collapse into another user, and a token lifetime beyond
 * AUTH_MAX_TOKEN_TTL are 401 on portfolio routes, before any service sees them.
 */
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintDevToken } from '@invest/gateway/testing/gateway-test-kit';
import { type FullStack, startFullStack } from '../support/full-stack.js';

const SECRET = 'token-rules-e2e-secret-0123456789-0123456789';
const DAY = 86_400;
const now = () => Math.floor(Date.now() / 1000);
const hs256 = (claims: Record<string, unknown>) => new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET));

let stack: FullStack;
beforeAll(async () => {
  stack = await startFullStack({
    name: 'gwtok',
    tickers: [],
    screener: { loadDemoData: false },
    gateway: { auth: { jwtSecret: SECRET, maxTokenTtlS: 7 * DAY }, readyServices: ['portfolios'] },
  });
});
afterAll(() => stack?.close());

async function call(method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(new URL(path, stack.base), {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

describe('sub', () => {
  it('a NUL, a lone surrogate or U+FFFD in sub is a 401 on every portfolio route (was 500, or one user for three)', async () => {
    for (const sub of ['a\u0000b', 'a\ud800b', 'a\udc00b', 'a\ufffdb']) {
      const token = await hs256({ sub, exp: now() + 600 });
      for (const [method, path, body] of [
        ['GET', '/api/portfolios'],
        ['POST', '/api/portfolios', { name: 'P', currency_code: 'RUB' }],
        ['GET', '/api/watchlists'],
      ] as const) {
        const r = await call(method, path, token, body);
        expect(r.status, `${JSON.stringify(sub)} ${method} ${path}`).toBe(401);
        expect(r.body).toEqual({ message: 'Unauthenticated.' });
      }
    }
  });

  it('an ordinary sub still works', async () => {
    const token = await hs256({ sub: 'ordinary-user', exp: now() + 600 });
    expect((await call('POST', '/api/portfolios', token, { name: 'P', currency_code: 'RUB' })).status).toBe(201);
    expect((await call('GET', '/api/portfolios', token)).status).toBe(200);
  });
});

describe('lifetime (AUTH_MAX_TOKEN_TTL = 7 days here)', () => {
  it('refuses exp: 1e20 and a lifetime over the maximum; accepts one at the maximum', async () => {
    expect((await call('GET', '/api/portfolios', await hs256({ sub: 'u', exp: 1e20 }))).status).toBe(401);
    expect((await call('GET', '/api/portfolios', await hs256({ sub: 'u', iat: now(), exp: now() + 7 * DAY + 60 }))).status).toBe(401);
    expect((await call('GET', '/api/portfolios', await mintDevToken('u', SECRET, 7 * DAY + 1))).status).toBe(401);
    expect((await call('GET', '/api/portfolios', await mintDevToken('u', SECRET, 7 * DAY))).status).toBe(200);
  });
});
