import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { mintDevToken } from './dev-token.js';
import { AuthKeysUnavailableError, bearerToken, createJwtVerifier, InvalidTokenError } from './jwt-verifier.js';

const SECRET = 'test-secret-0123456789-0123456789-abcdef';
const now = () => Math.floor(Date.now() / 1000);

const hs256 = (claims: Record<string, unknown>, secret = SECRET) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(secret));

async function rejects(p: Promise<unknown>, reason: RegExp) {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InvalidTokenError);
  expect((err as InvalidTokenError).reason).toMatch(reason);
}

describe('HS256', () => {
  const verifier = createJwtVerifier({ jwtSecret: SECRET });

  it('accepts a valid token; sub is the user id', async () => {
    expect(await verifier.verify(await hs256({ sub: 'user-42', exp: now() + 60 }))).toEqual({ id: 'user-42' });
  });

  it('accepts a minted development token', async () => {
    const token = await mintDevToken('7', SECRET);
    expect(await verifier.verify(token)).toEqual({ id: '7' });
  });

  it('rejects an expired token', async () => {
    await rejects(verifier.verify(await hs256({ sub: 'u', exp: now() - 60 })), /expired/);
    await rejects(verifier.verify(await mintDevToken('u', SECRET, -60)), /expired/);
  });

  it('rejects a token signed with another secret', async () => {
    await rejects(verifier.verify(await hs256({ sub: 'u', exp: now() + 60 }, 'another-secret-0123456789-0123456789')), /signature/);
  });

  it('rejects a token without exp (it would be valid forever)', async () => {
    await rejects(verifier.verify(await hs256({ sub: 'u' })), /exp/);
  });

  it('rejects a token without sub', async () => {
    await rejects(verifier.verify(await hs256({ exp: now() + 60 })), /sub/);
  });

  it('rejects a not-yet-valid token', async () => {
    await rejects(verifier.verify(await hs256({ sub: 'u', nbf: now() + 600, exp: now() + 3600 })), /nbf/);
  });

  it('rejects alg none and garbage', async () => {
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{"sub":"u"}').toString('base64url')}.`;
    await rejects(verifier.verify(none), /.+/);
    await rejects(verifier.verify('abc.def.ghi'), /.+/);
  });

  it('rejects RS256 when no JWKS is configured', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const token = await new SignJWT({ sub: 'u' }).setProtectedHeader({ alg: 'RS256' }).setExpirationTime('1m').sign(privateKey);
    await rejects(verifier.verify(token), /alg|algorithm/i);
  });
});

describe('issuer and audience, when configured (AUTH_ISSUER, AUTH_AUDIENCE)', () => {
  const verifier = createJwtVerifier({ jwtSecret: SECRET, issuer: 'https://id.example.com/', audience: 'invest-tracker' });

  it('accepts a token of that issuer for this audience (aud a string or a list naming it)', async () => {
    const base = { sub: 'u1', exp: now() + 60, iss: 'https://id.example.com/' };
    expect(await verifier.verify(await hs256({ ...base, aud: 'invest-tracker' }))).toEqual({ id: 'u1' });
    expect(await verifier.verify(await hs256({ ...base, aud: ['crm', 'invest-tracker'] }))).toEqual({ id: 'u1' });
  });

  it("refuses another application's token, one without the claims, and another issuer's", async () => {
    const base = { sub: 'u1', exp: now() + 60 };
    await rejects(verifier.verify(await hs256({ ...base, iss: 'https://id.example.com/', aud: 'crm' })), /aud/);
    await rejects(verifier.verify(await hs256({ ...base, iss: 'https://id.example.com/' })), /aud/);
    await rejects(verifier.verify(await hs256({ ...base, iss: 'https://other.example.com/', aud: 'invest-tracker' })), /iss/);
    await rejects(verifier.verify(await hs256({ ...base, aud: 'invest-tracker' })), /iss/);
  });

  it('without them configured, neither claim is looked at', async () => {
    const plain = createJwtVerifier({ jwtSecret: SECRET });
    expect(await plain.verify(await hs256({ sub: 'u1', exp: now() + 60, iss: 'anyone', aud: 'crm' }))).toEqual({ id: 'u1' });
  });
});

describe('clock skew: 5 s, as the README says', () => {
  const verifier = createJwtVerifier({ jwtSecret: SECRET });
  // A frozen clock, so "just inside" and "just outside" are exact seconds, not a race with the test.
  const T = 1_800_000_000;
  beforeAll(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(T * 1000 + 500);
  });
  afterAll(() => vi.useRealTimers());

  it('accepts a token expired less than 5 s ago, refuses one expired 5 s ago or more', async () => {
    expect(await verifier.verify(await hs256({ sub: 'u', iat: T - 60, exp: T - 4 }))).toEqual({ id: 'u' });
    await rejects(verifier.verify(await hs256({ sub: 'u', iat: T - 60, exp: T - 5 })), /expired/);
    await rejects(verifier.verify(await hs256({ sub: 'u', iat: T - 60, exp: T - 6 })), /expired/);
  });

  it('accepts a token valid from up to 5 s from now, refuses one valid from later', async () => {
    expect(await verifier.verify(await hs256({ sub: 'u', nbf: T + 5, exp: T + 60 }))).toEqual({ id: 'u' });
    await rejects(verifier.verify(await hs256({ sub: 'u', nbf: T + 6, exp: T + 60 })), /nbf/);
  });

  it('accepts a token issued up to 5 s from now, refuses one issued later', async () => {
    expect(await verifier.verify(await hs256({ sub: 'u', iat: T + 5, exp: T + 60 }))).toEqual({ id: 'u' });
    await rejects(verifier.verify(await hs256({ sub: 'u', iat: T + 6, exp: T + 60 })), /iat/);
  });
});

describe('sub: a user id that can be stored and told apart', () => {
  const verifier = createJwtVerifier({ jwtSecret: SECRET });
  const token = (sub: unknown) => hs256({ sub, exp: now() + 60 });

  it('refuses NUL and other controls, lone surrogates and U+FFFD (they were one user, or a 500)', async () => {
    for (const sub of ['a\u0000b', 'a\ud800b', 'a\udc00b', 'a\ufffdb', 'a\u001fb', 'a\u007fb', 'a\u0085b', 'a\nb', '\ud83d']) {
      await rejects(verifier.verify(await token(sub)), /sub/);
    }
  });

  it('refuses an empty, a too long, a padded or a non-string sub', async () => {
    for (const sub of ['', 'x'.repeat(129), ' u', 'u ', 42, ['u'], { id: 'u' }, null]) {
      await rejects(verifier.verify(await token(sub)), /sub/);
    }
  });

  it('accepts ordinary ids, including any well-formed Unicode up to 128 code units', async () => {
    for (const sub of ['u', '42', 'auth0|5f7c8ec7c33c6c004bbafe82', 'user@example.com', 'Пётр 😀', 'x'.repeat(128)]) {
      expect(await verifier.verify(await token(sub))).toEqual({ id: sub });
    }
  });
});

describe('lifetime: at most AUTH_MAX_TOKEN_TTL (default 30 days)', () => {
  const DAY = 86_400;
  afterEach(() => vi.useRealTimers());

  it('refuses exp: 1e20 and any lifetime over 30 days by default', async () => {
    const verifier = createJwtVerifier({ jwtSecret: SECRET });
    await rejects(verifier.verify(await hs256({ sub: 'u', exp: 1e20 })), /lifetime/);
    await rejects(verifier.verify(await hs256({ sub: 'u', iat: now(), exp: 1e20 })), /lifetime/);
    await rejects(verifier.verify(await hs256({ sub: 'u', exp: now() + 30 * DAY + 10 })), /lifetime/);
    // An old iat counts: issued 29 days ago, valid for 2 more, is a 31-day token.
    await rejects(verifier.verify(await hs256({ sub: 'u', iat: now() - 29 * DAY, exp: now() + 2 * DAY })), /lifetime/);
    expect(await verifier.verify(await hs256({ sub: 'u', exp: now() + 30 * DAY - 10 }))).toEqual({ id: 'u' });
  });

  it('measures exp - iat exactly when iat is given', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const T = 1_800_000_000;
    vi.setSystemTime(T * 1000);
    const verifier = createJwtVerifier({ jwtSecret: SECRET, maxTokenTtlS: 3600 });
    expect(await verifier.verify(await hs256({ sub: 'u', iat: T - 100, exp: T - 100 + 3600 }))).toEqual({ id: 'u' });
    await rejects(verifier.verify(await hs256({ sub: 'u', iat: T - 100, exp: T - 100 + 3601 })), /lifetime/);
    // Without iat the lifetime is what is left of it.
    expect(await verifier.verify(await hs256({ sub: 'u', exp: T + 3600 }))).toEqual({ id: 'u' });
    await rejects(verifier.verify(await hs256({ sub: 'u', exp: T + 3601 })), /lifetime/);
  });

  it('an iat far in the future cannot hide a far exp', async () => {
    const verifier = createJwtVerifier({ jwtSecret: SECRET });
    await rejects(verifier.verify(await hs256({ sub: 'u', iat: 1e20 - 60, exp: 1e20 })), /iat/);
  });

  it('a minted development token of the longest allowed lifetime passes', async () => {
    const verifier = createJwtVerifier({ jwtSecret: SECRET, maxTokenTtlS: 7 * DAY });
    expect(await verifier.verify(await mintDevToken('7', SECRET, 7 * DAY))).toEqual({ id: '7' });
    await rejects(verifier.verify(await mintDevToken('7', SECRET, 7 * DAY + 1)), /lifetime/);
  });
});

describe('RS256 via JWKS', () => {
  let server: Server;
  let jwksUrl: string;
  let privateKey: CryptoKey;
  let otherKey: CryptoKey;
  let requests = 0;
  let jwks: { keys: JWK[] };

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256', { extractable: true });
    privateKey = pair.privateKey;
    otherKey = (await generateKeyPair('RS256')).privateKey;
    jwks = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] };
    server = createServer((req, res) => {
      requests++;
      if (req.url !== '/.well-known/jwks.json') {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwks));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const rs256 = (key: CryptoKey, claims: Record<string, unknown>, kid = 'k1') =>
    new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid }).sign(key);

  it('accepts a token signed by a key of the set (fetched from the local server)', async () => {
    const verifier = createJwtVerifier({ jwksUrl });
    expect(await verifier.verify(await rs256(privateKey, { sub: 'rs-user', exp: now() + 60 }))).toEqual({ id: 'rs-user' });
    expect(requests).toBeGreaterThan(0);
  });

  it('rejects an expired RS256 token and one signed by a key outside the set', async () => {
    const verifier = createJwtVerifier({ jwksUrl });
    await rejects(verifier.verify(await rs256(privateKey, { sub: 'u', exp: now() - 60 })), /expired/);
    await rejects(verifier.verify(await rs256(otherKey, { sub: 'u', exp: now() + 60 })), /signature/);
  });

  it('rejects HS256 tokens when only a JWKS is configured (no algorithm confusion)', async () => {
    const verifier = createJwtVerifier({ jwksUrl });
    await rejects(verifier.verify(await hs256({ sub: 'u', exp: now() + 60 })), /alg|algorithm/i);
  });

  it('accepts both kinds when both are configured', async () => {
    const verifier = createJwtVerifier({ jwksUrl, jwtSecret: SECRET });
    expect(await verifier.verify(await hs256({ sub: 'h', exp: now() + 60 }))).toEqual({ id: 'h' });
    expect(await verifier.verify(await rs256(privateKey, { sub: 'r', exp: now() + 60 }))).toEqual({ id: 'r' });
  });

  it('an unreachable JWKS is our failure, not the token\'s', async () => {
    const verifier = createJwtVerifier({ jwksUrl: jwksUrl.replace('/.well-known/jwks.json', '/missing') });
    const err = await verifier.verify(await rs256(privateKey, { sub: 'u', exp: now() + 60 })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthKeysUnavailableError);
  });
});

describe('bearerToken', () => {
  it('extracts the token of a bearer header', () => {
    expect(bearerToken('Bearer aaa.bbb.ccc')).toBe('aaa.bbb.ccc');
    expect(bearerToken('bearer  aaa.bbb.ccc ')).toBe('aaa.bbb.ccc');
  });
  it('refuses anything else', () => {
    for (const h of [undefined, '', 'Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', 'Bearer aaa', 'Bearer aaa.bbb.ccc extra', 'Token aaa.bbb.ccc', ['Bearer a.b.c']]) {
      expect(bearerToken(h)).toBeUndefined();
    }
  });
});
