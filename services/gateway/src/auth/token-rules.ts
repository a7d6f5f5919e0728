/**
 * What the gateway asks of a token beyond its signature and `exp`/`nbf` (docs/decisions.md, "token
 * rules"): a `sub` that can be stored and compared faithfully, and a bounded lifetime.
 */

/** Default of `AUTH_MAX_TOKEN_TTL`: the longest lifetime a token may claim. */
export const DEFAULT_MAX_TOKEN_TTL = '30d';

/** Longest `sub`, in UTF-16 code units (the user id is a `text` column; a bound keeps logs and keys small). */
export const MAX_SUBJECT_LENGTH = 128;

const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 } as const;

/** `3600`, `30m`, `12h`, `30d`, `2w` → seconds; undefined when the text is none of these. */
export function parseDurationSeconds(text: string): number | undefined {
  const match = /^(\d{1,10})\s*([smhdw]?)$/.exec(text.trim());
  if (!match) return undefined;
  const unit = (match[2] || 's') as keyof typeof UNIT_SECONDS;
  return Number(match[1]) * UNIT_SECONDS[unit];
}

// Controls (C0, DEL, C1), lone surrogates (with the u flag a valid pair is one code point, never Cs),
// and U+FFFD, which is what a decoder leaves of bytes it could not read.
const UNSAFE_SUBJECT_CHAR = /[\p{Cc}\p{Cs}\uFFFD]/u;

/**
 * Why `sub` cannot be a user id, or undefined when it can. A lone surrogate cannot be stored as
 * text (Postgres and JSON encoders replace it with U+FFFD, so `a\ud800b` and `a\udc00b` would be one
 * user), nor can NUL (Postgres refuses it: every route would answer 500).
 */
export function subjectProblem(sub: unknown): string | undefined {
  if (typeof sub !== 'string' || sub.length === 0) return 'sub missing';
  if (sub.length > MAX_SUBJECT_LENGTH) return `sub longer than ${MAX_SUBJECT_LENGTH}`;
  if (UNSAFE_SUBJECT_CHAR.test(sub)) return 'sub has a control character, a lone surrogate or U+FFFD';
  if (sub.trim() !== sub) return 'sub has leading or trailing white space';
  return undefined;
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
