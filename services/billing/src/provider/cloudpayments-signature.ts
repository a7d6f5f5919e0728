import { createHmac, timingSafeEqual } from 'node:crypto';

const sign = (secret: string, message: Buffer) => createHmac('sha256', secret).update(message).digest('base64');

function equal(given: string | null | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given.trim());
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `+` → space, `%xx` → byte, as the provider decodes; undefined for a malformed escape. */
export function urlDecoded(raw: Buffer): Buffer | undefined {
  try {
    return Buffer.from(decodeURIComponent(raw.toString('utf8').replace(/\+/g, ' ')), 'utf8');
  } catch {
    return undefined;
  }
}

/** What an accepted signature covers: the raw body bytes, or only the URL-decoded parameter string. */
export type SignedMessage = 'raw' | 'decoded';

/**
 * The CloudPayments notification signature check (reference §2): `Content-HMAC` is HMAC-SHA256 of the raw
 * body bytes, `X-Content-HMAC` of the URL-decoded parameter string, both base64 with the API secret.
 * Integrations disagree on which header carries which, so either header may match either message. Runs
 * on the bytes as received, before anything parses them; compares in constant time. Answers which message
 * the signature covers (the raw bytes when both match), or undefined: a decoded-only match does not cover
 * the escapes, so its caller must parse what the decoded text says (`signedNotificationParams`).
 */
export function verifyCloudPaymentsSignature(raw: Buffer, headers: { contentHmac?: string | null; xContentHmac?: string | null }, secret: string): SignedMessage | undefined {
  if (!secret || (!headers.contentHmac && !headers.xContentHmac)) return undefined;
  const candidates = [headers.contentHmac, headers.xContentHmac];
  const byRaw = sign(secret, raw);
  if (candidates.some((h) => equal(h, byRaw))) return 'raw';
  const decoded = urlDecoded(raw);
  if (!decoded) return undefined;
  const byDecoded = sign(secret, decoded);
  return candidates.some((h) => equal(h, byDecoded)) ? 'decoded' : undefined;
}

/** Signs a body as CloudPayments does (both headers); for the local provider and tests. */
export function signCloudPayments(raw: Buffer, secret: string): { 'Content-HMAC': string; 'X-Content-HMAC': string } {
  return { 'Content-HMAC': sign(secret, raw), 'X-Content-HMAC': sign(secret, urlDecoded(raw) ?? raw) };
}
