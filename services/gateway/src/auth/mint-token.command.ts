/**
 * `npm run token -- <userId> [ttl]`: prints a development bearer token for `userId` (HS256 with
 * AUTH_JWT_SECRET, or its development default outside production) as the last line of its output.
 * `ttl`: seconds or a duration such as `2h`, `7d` (default 12h), at most AUTH_MAX_TOKEN_TTL: minted
 * tokens follow the same rules as any other (docs/decisions/0014-token-rules.md).
 */
import { loadGatewayConfigOrExit } from '../config/gateway.config.js';
import { DEV_TOKEN_TTL, mintDevToken } from './dev-token.js';
import { DEFAULT_MAX_TOKEN_TTL, parseDurationSeconds, subjectProblem } from './token-rules.js';

const [userId, ttlArg] = process.argv.slice(2);
if (!userId || userId.startsWith('-')) {
  process.stderr.write('usage: npm run token -- <userId> [ttl, e.g. 3600 or 2h; default 12h]\n');
  process.exit(64);
}
const subject = subjectProblem(userId);
if (subject) {
  process.stderr.write(`invalid userId: ${subject}\n`);
  process.exit(64);
}
const ttlS = parseDurationSeconds(ttlArg ?? DEV_TOKEN_TTL);
if (ttlS === undefined) {
  process.stderr.write(`invalid ttl "${String(ttlArg)}": use seconds (3600) or a duration (30m, 2h, 7d)\n`);
  process.exit(64);
}
const config = loadGatewayConfigOrExit();
const maxTtlS = config.auth.maxTokenTtlS ?? parseDurationSeconds(DEFAULT_MAX_TOKEN_TTL)!;
if (ttlS > maxTtlS) {
  process.stderr.write(`ttl ${ttlS}s is longer than AUTH_MAX_TOKEN_TTL (${maxTtlS}s): the gateway would refuse the token\n`);
  process.exit(64);
}
const secret = config.auth.jwtSecret;
if (!secret) {
  process.stderr.write('AUTH_JWT_SECRET is not set: tokens are verified through AUTH_JWKS_URL only, so none can be minted here.\n');
  process.exit(78);
}
const token = await mintDevToken(userId, secret, ttlS);
process.stdout.write(`Development token for user "${userId}" (HS256, expires in ${ttlArg ?? DEV_TOKEN_TTL}${ttlArg && /^\d+$/.test(ttlArg) ? 's' : ''}):\n${token}\n`);
