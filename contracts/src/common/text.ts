import { z } from 'zod';

/**
 * A string field whose error says which it is: missing (`The uuid field is required.`) or of another type
 * (`The uuid field must be a string.`, for `{"uuid": 12345}`).
 */
export function requiredString(label: string) {
  return z.string({ error: (iss) => (iss.input === undefined || iss.input === null ? `The ${label} field is required.` : `The ${label} field must be a string.`) });
}

/** Longest user id, in UTF-16 code units (a `text` column everywhere; a bound keeps logs and keys small). */
export const MAX_USER_ID_LENGTH = 128;

// Controls (C0, DEL, C1), lone surrogates (with the u flag a valid pair is one code point, never Cs), and
// U+FFFD, which is what a decoder leaves of bytes it could not read.
const UNSAFE_USER_ID_CHAR = /[\p{Cc}\p{Cs}\uFFFD]/u;

/**
 * Why a text cannot be a user id, or undefined when it can: every service stores and compares user ids as
 * the gateway accepts them in a token's `sub` (and billing as a payment's `AccountId`). Any Unicode is fine
 * but controls (NUL: Postgres refuses it), lone surrogates and U+FFFD (stored as U+FFFD, `a\ud800b` and
 * `a\udc00b` would be one user), and leading or trailing white space (two ids that look the same in logs).
 */
export function userIdProblem(id: unknown): string | undefined {
  if (typeof id !== 'string' || id.length === 0) return 'missing';
  if (id.length > MAX_USER_ID_LENGTH) return `longer than ${MAX_USER_ID_LENGTH}`;
  if (UNSAFE_USER_ID_CHAR.test(id)) return 'has a control character, a lone surrogate or U+FFFD';
  if (id.trim() !== id) return 'has leading or trailing white space';
  return undefined;
}
