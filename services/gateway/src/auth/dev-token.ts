import { SignJWT } from 'jose';

/** Default lifetime of a development token. */
export const DEV_TOKEN_TTL = '12h';

/** Mints an HS256 token for `userId` (`sub`), valid for `ttl` (seconds or a jose duration such as `2h`). */
export async function mintDevToken(userId: string, secret: string, ttl: string | number = DEV_TOKEN_TTL): Promise<string> {
  if (!userId) throw new Error('userId is required');
  // One reading of the clock: exp - iat is exactly the ttl, which the gateway bounds (AUTH_MAX_TOKEN_TTL).
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(userId)
    .setIssuedAt(now)
    .setExpirationTime(typeof ttl === 'number' ? now + ttl : ttl)
    .sign(new TextEncoder().encode(secret));
}
