/**
 * `npm run token -- <userId> [ttl]`: prints a development bearer token for `userId` (HS256 with
 * AUTH_JWT_SECRET, or its development default outside production) as the last line of its output.
 * `ttl`: seconds or a duration such as `2h`, `7d` (default 12h).
 */
import { loadGatewayConfigOrExit } from '../config/gateway.config.js';
import { DEV_TOKEN_TTL, mintDevToken } from './dev-token.js';

const [userId, ttlArg] = process.argv.slice(2);
if (!userId || userId.startsWith('-')) {
  process.stderr.write('usage: npm run token -- <userId> [ttl, e.g. 3600 or 2h; default 12h]\n');
  process.exit(64);
}
if (ttlArg !== undefined && !/^\d+$|^\d+\s*(s|m|h|d|w)$/.test(ttlArg)) {
  process.stderr.write(`invalid ttl "${ttlArg}": use seconds (3600) or a duration (30m, 2h, 7d)\n`);
  process.exit(64);
}
const config = loadGatewayConfigOrExit();
const secret = config.auth.jwtSecret;
if (!secret) {
  process.stderr.write('AUTH_JWT_SECRET is not set: tokens are verified through AUTH_JWKS_URL only, so none can be minted here.\n');
  process.exit(78);
}
const ttl = ttlArg === undefined ? DEV_TOKEN_TTL : /^\d+$/.test(ttlArg) ? Number(ttlArg) : ttlArg;
const token = await mintDevToken(userId, secret, ttl);
process.stdout.write(`Development token for user "${userId}" (HS256, expires in ${String(ttl)}${typeof ttl === 'number' ? 's' : ''}):\n${token}\n`);
