import { createRemoteJWKSet, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { AuthConfig } from '../config/gateway.config.js';
import { DEFAULT_MAX_TOKEN_TTL, lifetimeProblem, parseDurationSeconds, subjectProblem } from './token-rules.js';

/** Who a valid token speaks for. */
export interface AuthenticatedUser {
  /** The token's `sub`. */
  id: string;
}

/** Why a token was refused; the HTTP answer is always a plain 401, the reason goes to the log. */
export class InvalidTokenError extends Error {
  constructor(readonly reason: string) {
    super(`invalid token: ${reason}`);
    this.name = 'InvalidTokenError';
  }
}

/** The JWKS could not be fetched: our fault, not the client's (answered 503). */
export class AuthKeysUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`JWKS not available: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'AuthKeysUnavailableError';
  }
}

export interface JwtVerifier {
  verify(token: string): Promise<AuthenticatedUser>;
}

/** Seconds of clock skew tolerated for `exp`, `nbf` and `iat` (the README says 5 s; the tests hold it to that). */
const CLOCK_TOLERANCE_S = 5;

/**
 * Verifies bearer tokens: HS256 with the shared secret, RS256 against the JWKS, or either when both
 * are configured (chosen by the token's `alg`, restricted to the configured ones).
 */
export function createJwtVerifier(config: AuthConfig): JwtVerifier {
  // Imported once: given the raw secret, jose imports it again for every token (a third of a verification's CPU).
  const secret = config.jwtSecret
    ? crypto.subtle.importKey('raw', new TextEncoder().encode(config.jwtSecret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify'])
    : undefined;
  const jwks = config.jwksUrl ? createRemoteJWKSet(new URL(config.jwksUrl), { timeoutDuration: 3000 }) : undefined;
  if (!secret && !jwks) throw new Error('JWT verification needs AUTH_JWT_SECRET or AUTH_JWKS_URL');
  const algorithms = [...(secret ? ['HS256'] : []), ...(jwks ? ['RS256'] : [])];
  const maxTtlS = config.maxTokenTtlS ?? parseDurationSeconds(DEFAULT_MAX_TOKEN_TTL)!;
  const getKey: JWTVerifyGetKey = (header, token) => {
    if (header.alg === 'HS256' && secret) return secret;
    if (header.alg === 'RS256' && jwks) return jwks(header, token).catch(jwksFailure);
    throw new InvalidTokenError(`algorithm ${String(header.alg)} not accepted`);
  };

  return {
    async verify(token: string): Promise<AuthenticatedUser> {
      try {
        // exp is required: jose checks it only when present, and a token without one would never expire.
        // `iss` and `aud` when configured (jose requires the claim then): tokens an identity provider shared with other
        // applications issued for them are refused.
        const { payload } = await jwtVerify(token, getKey, {
          algorithms,
          clockTolerance: CLOCK_TOLERANCE_S,
          requiredClaims: ['exp'],
          ...(config.issuer ? { issuer: config.issuer } : {}),
          ...(config.audience ? { audience: config.audience } : {}),
        });
        const nowS = Math.floor(Date.now() / 1000);
        // jose has checked that exp (required) and iat (when present) are numbers.
        const problem = subjectProblem(payload.sub) ?? lifetimeProblem({ exp: payload.exp!, iat: payload.iat }, nowS, maxTtlS, CLOCK_TOLERANCE_S);
        if (problem) throw new InvalidTokenError(problem);
        return { id: payload.sub! };
      } catch (err) {
        throw toInvalidToken(err);
      }
    },
  };
}

/** Errors of the JWKS lookup: a key the token names but the set lacks is the token's fault; the rest is ours. */
function jwksFailure(err: unknown): never {
  if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys) throw err;
  // Timeouts, network errors, non-200 answers (a bare JOSEError), an invalid key set.
  throw new AuthKeysUnavailableError(err);
}

function toInvalidToken(err: unknown): InvalidTokenError | AuthKeysUnavailableError {
  if (err instanceof InvalidTokenError || err instanceof AuthKeysUnavailableError) return err;
  if (err instanceof errors.JWTExpired) return new InvalidTokenError('expired');
  if (err instanceof errors.JWSSignatureVerificationFailed) return new InvalidTokenError('bad signature');
  if (err instanceof errors.JWKSNoMatchingKey) return new InvalidTokenError('no matching key in JWKS');
  if (err instanceof errors.JOSEError) return new InvalidTokenError(`${err.code}: ${err.message}`);
  return new InvalidTokenError(err instanceof Error ? err.message : 'unreadable');
}

/** The token of an `Authorization: Bearer <token>` header, or undefined when it is absent or not a bearer. */
export function bearerToken(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer[ \t]+([A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]*)[ \t]*$/i.exec(header);
  return match?.[1];
}
