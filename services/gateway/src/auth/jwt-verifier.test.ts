import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
