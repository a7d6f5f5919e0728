/**
 * `npm run token` mints only tokens the gateway accepts (docs/decisions/0014-token-rules.md): run as a
 * real process from source.
 */
import { fileURLToPath } from 'node:url';
import { runSourceMain } from '@invest/platform/testing/index';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { DEV_JWT_SECRET } from '../config/gateway.config.js';
import { createJwtVerifier } from './jwt-verifier.js';

const COMMAND = fileURLToPath(new URL('./mint-token.command.ts', import.meta.url));
const token = (env: Record<string, string>, ...args: string[]) => runSourceMain(COMMAND, { LOG_LEVEL: 'silent', ...env }, 45_000, args);

describe('npm run token', () => {
  it('mints a token whose lifetime is exactly the ttl, accepted by the gateway', async () => {
    const out = await token({ AUTH_JWT_SECRET: DEV_JWT_SECRET }, 'dev-user', '2h');
    expect(out.code, out.stderr).toBe(0);
    const jwt = out.stdout.trim().split('\n').at(-1)!;
    const claims = decodeJwt(jwt);
    expect(claims.exp! - claims.iat!).toBe(7200);
    expect(await createJwtVerifier({ jwtSecret: DEV_JWT_SECRET }).verify(jwt)).toEqual({ id: 'dev-user' });
  }, 60_000);

  it('refuses a ttl longer than AUTH_MAX_TOKEN_TTL, and a user id the gateway would refuse', async () => {
    // The default ttl (12h) over a configured maximum of 1h.
    const [configured, padded] = await Promise.all([token({ AUTH_MAX_TOKEN_TTL: '1h' }, 'dev-user'), token({}, ' dev-user')]);
    expect(configured.code).toBe(64);
    expect(configured.stderr).toMatch(/longer than AUTH_MAX_TOKEN_TTL \(3600s\)/);
    expect(padded.code).toBe(64);
    expect(padded.stderr).toMatch(/white space/);
  }, 60_000);
});
