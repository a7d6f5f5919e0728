/**
 * The parameters of a provider notification, after its signature was checked: a form body (the default,
 * lower-case escapes, `+` for space) or JSON, by Content-Type. Every value is a string (a JSON number as
 * written); empty optional fields (`SubscriptionId=`) are absent. `undefined` when the body is neither.
 */
export function notificationParams(raw: Buffer, contentType: string | null): Record<string, string> | undefined {
  const text = raw.toString('utf8');
  if (/json/i.test(contentType ?? '')) {
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
    const key = decode(eq < 0 ? pair : pair.slice(0, eq));
    const value = decode(eq < 0 ? '' : pair.slice(eq + 1));
    if (key === undefined || value === undefined) return undefined;
    if (value !== '' && !(key in out)) out[key] = value;
  }
  return out;
}

function decode(s: string): string | undefined {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}
