/**
 * Forged and malformed tokens and Authorization headers on the custom-asset and signed-in screener routes (full
 * stack, own database and bus prefix), beyond token-rules.e2e.test.ts: hand-made HS256 tokens signed with the
 * gateway's own secret, so only the claims and headers are wrong. Each is a 401 with `WWW-Authenticate: Bearer`.
 */
import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { base64url } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FullStack, startFullStack } from '../support/full-stack.js';

const SECRET = 'token-forgery-secret-0123456789-0123456789';
let stack: FullStack;
beforeAll(async () => {
  stack = await startFullStack({ name: 'gwtokf', tickers: [], screener: { loadDemoData: false }, gateway: { auth: { jwtSecret: SECRET } } });
});
afterAll(() => stack?.close());

const now = () => Math.floor(Date.now() / 1000);
/** An HS256-signed token over any header and payload text (with `hash` the HMAC a different alg would use). */
function forge(header: string, payload: string | Buffer, hash = 'sha256'): string {
  const h = base64url.encode(header);
  const p = base64url.encode(typeof payload === 'string' ? payload : new Uint8Array(payload));
  return `${h}.${p}.${createHmac(hash, SECRET).update(`${h}.${p}`).digest('base64url')}`;
}

function get(path: string, headers: Record<string, string | string[]>): Promise<{ status: number; text: string; auth: unknown }> {
  const u = new URL(stack.base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: u.hostname, port: u.port, method: 'GET', path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString('utf8'), auth: res.headers['www-authenticate'] }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('tokens', () => {
  const e = () => now() + 600;
  const refused: [string, () => string][] = [
    ['nbf in the future', () => forge('{"alg":"HS256"}', `{"sub":"u1","exp":${e()},"nbf":${now() + 300}}`)],
    ['exp as a string', () => forge('{"alg":"HS256"}', `{"sub":"u1","exp":"${e()}"}`)],
    ['exp 1e400', () => forge('{"alg":"HS256"}', '{"sub":"u1","exp":1e400}')],
    ['exp -0', () => forge('{"alg":"HS256"}', '{"sub":"u1","exp":-0}')],
    ['iat as a string', () => forge('{"alg":"HS256"}', `{"sub":"u1","exp":${e()},"iat":"0"}`)],
    ['iat -1e308 (a lifetime beyond the maximum)', () => forge('{"alg":"HS256"}', `{"sub":"u1","exp":${e()},"iat":-1e308}`)],
    ['sub a number', () => forge('{"alg":"HS256"}', `{"sub":42,"exp":${e()}}`)],
    ['sub an array', () => forge('{"alg":"HS256"}', `{"sub":["u1"],"exp":${e()}}`)],
    ['sub with a trailing no-break space', () => forge('{"alg":"HS256"}', `{"sub":"u1\\u00a0","exp":${e()}}`)],
    ['sub only inside __proto__', () => forge('{"alg":"HS256"}', `{"__proto__":{"sub":"u1"},"exp":${e()}}`)],
    ['HS512 with the same secret', () => forge('{"alg":"HS512"}', `{"sub":"u1","exp":${e()}}`, 'sha512')],
    ['alg none', () => `${base64url.encode('{"alg":"none"}')}.${base64url.encode(`{"sub":"u1","exp":${e()}}`)}.`],
    ['an unknown crit header', () => forge('{"alg":"HS256","crit":["x"],"x":1}', `{"sub":"u1","exp":${e()}}`)],
    ['b64: false', () => forge('{"alg":"HS256","crit":["b64"],"b64":false}', `{"sub":"u1","exp":${e()}}`)],
    ['a payload that is an array', () => forge('{"alg":"HS256"}', '[1]')],
    ['a payload that is null', () => forge('{"alg":"HS256"}', 'null')],
    ['a payload that is not UTF-8', () => forge('{"alg":"HS256"}', Buffer.concat([Buffer.from('{"sub":"a'), Buffer.from([0xff]), Buffer.from(`","exp":${e()}}`)]))],
    ['base64 padding after the signature', () => `${forge('{"alg":"HS256"}', `{"sub":"u1","exp":${e()}}`)}=`],
  ];
  for (const [label, token] of refused) {
    it(`401 for ${label}`, async () => {
      for (const path of ['/api/custom-assets', '/api/shares']) {
        const r = await get(path, { authorization: `Bearer ${token()}` });
        expect(r.status, `${path}: ${r.text}`).toBe(401);
        expect(JSON.parse(r.text)).toEqual({ message: 'Unauthenticated.' });
        expect(r.auth).toBe('Bearer');
      }
    });
  }

  it('the same claims, well formed, are accepted (the forger is right)', async () => {
    expect((await get('/api/custom-assets', { authorization: `Bearer ${forge('{"alg":"HS256"}', `{"sub":"u1","exp":${e()}}`)}` })).status).toBe(200);
  });
});

describe('headers', () => {
  it('scheme case and spacing are tolerated; two tokens in one header, or a header of 15 KB, are 401', async () => {
    const t = forge('{"alg":"HS256"}', `{"sub":"u2","exp":${now() + 600}}`);
    for (const value of [`bearer ${t}`, `BEARER ${t}`, `Bearer  ${t}`, `Bearer\t${t}`, `Bearer ${t} `]) {
      expect((await get('/api/custom-assets', { authorization: value })).status, JSON.stringify(value.slice(0, 10))).toBe(200);
    }
    for (const value of [`Bearer ${t}, Bearer ${t}`, `Bearer ${t}.x`, `Token ${t}`, `Bearer ${'a'.repeat(15_000)}.b.c`, 'Bearer', 'Bearer ..']) {
      expect((await get('/api/custom-assets', { authorization: value })).status, value.slice(0, 30)).toBe(401);
    }
  });
});
