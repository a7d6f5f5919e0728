/** Query parameters that carry credentials: a client may put a token in the URL, and the URL is logged. */
const SECRET_PARAMS = new Set(['token', 'access_token', 'jwt', 'api_key', 'key', 'signature']);

/**
 * The URL with the value of every credential parameter (`token`, `access_token`, `jwt`, `api_key`, `key`,
 * `signature`, in any case, escaped or not) replaced by `[redacted]`; the rest is kept as sent. For logs.
 */
export function redactUrl(url: unknown): unknown {
  if (typeof url !== 'string') return url;
  const q = url.indexOf('?');
  if (q < 0) return url;
  const hash = url.indexOf('#', q);
  const query = url.slice(q + 1, hash < 0 ? undefined : hash);
  const redacted = query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      return SECRET_PARAMS.has(decodedName(name).toLowerCase()) ? `${name}=[redacted]` : pair;
    })
    .join('&');
  return url.slice(0, q + 1) + redacted + (hash < 0 ? '' : url.slice(hash));
}

function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' ')).trim();
  } catch {
    return name;
  }
}
