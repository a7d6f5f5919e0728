import { SignJWT } from 'jose';

/** Default lifetime of a development token. */
export const DEV_TOKEN_TTL = '12h';

/** Mints an HS256 token for `userId` (`sub`), valid for `ttl` (seconds or a jose duration such as `2h`). */
export async function mintDevToken(userId: string, secret: string, ttl: string | number = DEV_TOKEN_TTL): Promise<string> {
  if (!userId) throw new Error('userId is required');
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(userId)
    .setIssuedAt()
    .setExpirationTime(typeof ttl === 'number' ? Math.floor(Date.now() / 1000) + ttl : ttl)
    .sign(new TextEncoder().encode(secret));
}
