import { createHmac, timingSafeEqual } from 'node:crypto';

const sign = (secret: string, message: Buffer) => createHmac('sha256', secret).update(message).digest('base64');

function equal(given: string | null | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given.trim());
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `+` → space, `%xx` → byte, as the provider decodes; undefined for a malformed escape. */
function urlDecoded(raw: Buffer): Buffer | undefined {
  try {
    return Buffer.from(decodeURIComponent(raw.toString('utf8').replace(/\+/g, ' ')), 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * The CloudPayments notification signature check (reference §2): `Content-HMAC` is HMAC-SHA256 of the raw
 * body bytes, `X-Content-HMAC` of the URL-decoded parameter string, both base64 with the API secret.
 * Integrations disagree on which header carries which, so either header may match either message. Runs
 * on the bytes as received, before anything parses them; compares in constant time.
 */
export function verifyCloudPaymentsSignature(raw: Buffer, headers: { contentHmac?: string | null; xContentHmac?: string | null }, secret: string): boolean {
  if (!secret || (!headers.contentHmac && !headers.xContentHmac)) return false;
  const byRaw = sign(secret, raw);
  const decoded = urlDecoded(raw);
  const byDecoded = decoded ? sign(secret, decoded) : undefined;
  const candidates = [headers.contentHmac, headers.xContentHmac];
  return candidates.some((h) => equal(h, byRaw) || (byDecoded !== undefined && equal(h, byDecoded)));
}

/** Signs a body as CloudPayments does (both headers); for the local provider and tests. */
export function signCloudPayments(raw: Buffer, secret: string): { 'Content-HMAC': string; 'X-Content-HMAC': string } {
  return { 'Content-HMAC': sign(secret, raw), 'X-Content-HMAC': sign(secret, urlDecoded(raw) ?? raw) };
}
