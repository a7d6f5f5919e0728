import { MAX_USER_ID_LENGTH, userIdProblem } from '@invest/contracts';

/**
 * What the gateway asks of a token beyond its signature and `exp`/`nbf` (docs/decisions/0014-token-rules.md):
 * a `sub` that can be stored and compared faithfully, and a bounded lifetime.
 */

/** Default of `AUTH_MAX_TOKEN_TTL`: the longest lifetime a token may claim. */
export const DEFAULT_MAX_TOKEN_TTL = '30d';

/** Longest `sub`, in UTF-16 code units: a user id's. */
export const MAX_SUBJECT_LENGTH = MAX_USER_ID_LENGTH;

const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 } as const;

/** `3600`, `30m`, `12h`, `30d`, `2w` → seconds; undefined when the text is none of these. */
export function parseDurationSeconds(text: string): number | undefined {
  const match = /^(\d{1,10})\s*([smhdw]?)$/.exec(text.trim());
  if (!match) return undefined;
  const unit = (match[2] || 's') as keyof typeof UNIT_SECONDS;
  return Number(match[1]) * UNIT_SECONDS[unit];
}

/** Why `sub` cannot be a user id (`userIdProblem`), or undefined when it can. */
export function subjectProblem(sub: unknown): string | undefined {
  const problem = userIdProblem(sub);
  return problem && `sub ${problem}`;
}

/**
 * Why the token's lifetime is refused, or undefined when it is within `maxTtlS`. The lifetime is
 * `exp - iat`, or `exp - now` without `iat`; an `iat` in the future (beyond the clock skew) is
 * refused too, or it would shorten the lifetime it claims.
 */
export function lifetimeProblem(claims: { exp: number; iat?: number | undefined }, nowS: number, maxTtlS: number, skewS: number): string | undefined {
  if (claims.iat !== undefined && claims.iat > nowS + skewS) return 'iat in the future';
  const lifetime = claims.exp - (claims.iat ?? nowS);
  if (lifetime > maxTtlS) return `lifetime ${lifetime}s exceeds the maximum ${maxTtlS}s`;
  return undefined;
}
