import { type SignedMessage, urlDecoded } from './cloudpayments-signature.js';

/**
 * The parameters of a provider notification, after its signature was checked: a form body (the default,
 * lower-case escapes, `+` for space) or JSON (`isJson`). Every value is a string (a JSON number as
 * written); empty optional fields (`SubscriptionId=`) are absent. `undefined` when the body is neither.
 */
export function notificationParams(raw: Buffer, contentType: string | null): Record<string, string> | undefined {
  const text = raw.toString('utf8');
  return readParams(text, isJson(text, contentType), decode);
}

/**
 * JSON when the Content-Type says so, or when the body is a JSON object whatever it says: the Content-Type is
 * outside the signature, and a signed JSON notification re-sent as a form was split on the `&` and `=` inside its
 * strings (text the payer typed, such as `Data`), so its fields were whatever the payer wrote there.
 */
function isJson(text: string, contentType: string | null): boolean {
  return /json/i.test(contentType ?? '') || text.trimStart().startsWith('{');
}

/**
 * The parameters exactly as the accepted signature covers them. A signature over the raw bytes covers the
 * raw reading. One over the decoded text (`X-Content-HMAC`) does not cover the escapes: a payer who puts
 * `&Amount=…` in `Data` can move the real `&` and `=` between escaped and plain without changing the decoded
 * text, so the raw reading could say anything. Then the decoded text is read as it stands (split on `&` and
 * `=`, nothing decoded again), and the notification is taken only when both readings say the same:
 * 'ambiguous' otherwise, which the caller refuses as unsigned.
 */
export function signedNotificationParams(raw: Buffer, contentType: string | null, covers: SignedMessage): Record<string, string> | 'ambiguous' | undefined {
  const params = notificationParams(raw, contentType);
  if (!params) return params;
  // Bytes with nothing to decode (no `%`, no `+`) are their own decoded text: a signature of them may be an
  // X-Content-HMAC (either header may carry either signature), so they are read as decoded text is.
  if (covers === 'raw' && hasEscapes(raw)) return params;
  const decoded = urlDecoded(raw);
  // Read in the format of the bytes received, so both readings parse the same kind of text.
  const json = isJson(raw.toString('utf8'), contentType);
  const text = decoded?.toString('utf8');
  if (text === undefined || (!json && !plainForm(text))) return 'ambiguous';
  const signed = readParams(text, json, (s) => s);
  return signed && sameParams(params, signed) ? params : 'ambiguous';
}

/**
 * Whether decoded form text reads only one way: every part a `name=value` and no name twice. The provider sends
 * each field once, so a repeated or bare part is text the payer put in a value (`Data`), and the decoded text
 * alone cannot say where that value ends: such a notification is taken only signed over its raw bytes.
 */
function plainForm(text: string): boolean {
  const names = new Set<string>();
  for (const part of text.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    if (eq < 0) return false;
    const name = part.slice(0, eq);
    if (names.has(name)) return false;
    names.add(name);
  }
  return true;
}

function readParams(text: string, json: boolean, decodePart: (s: string) => string | undefined): Record<string, string> | undefined {
  if (json) {
    let parsed: unknown;
    try {
      // Numbers as written (`"TransactionId": 9007199964992993`, `"Amount": 299.00`): through a double, two
      // transaction ids above 2^53 could become one, and an amount's digits could change.
      parsed = JSON.parse(text, (_key, value: unknown, context?: { source?: string }) => (typeof value === 'number' && context?.source !== undefined ? context.source : value));
    } catch {
      return undefined;
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(parsed)) {
      if (v === null || v === undefined || v === '') continue;
      out[k] = typeof v === 'object' ? JSON.stringify(v) : String(v);
    }
    return out;
  }
  const out: Record<string, string> = {};
  for (const pair of text.split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const key = decodePart(eq < 0 ? pair : pair.slice(0, eq));
    const value = decodePart(eq < 0 ? '' : pair.slice(eq + 1));
    if (key === undefined || value === undefined) return undefined;
    if (value !== '' && !(key in out)) out[key] = value;
  }
  return out;
}

function sameParams(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && b[k] === a[k]);
}

/** Whether URL-decoding would change the bytes: a `%` escape (or a malformed one) or a `+`. */
const hasEscapes = (raw: Buffer) => raw.includes(0x25) || raw.includes(0x2b);

function decode(s: string): string | undefined {
  // Most values (ids, amounts, codes) have nothing to decode.
  if (!s.includes('%') && !s.includes('+')) return s;
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}
