/** Query parameters that carry credentials: a client may put a token in the URL, and the URL is logged. */
const SECRET_PARAMS = new Set(['token', 'access_token', 'jwt', 'api_key', 'key', 'signature']);

/**
 * Paths whose next segment is a credential, as segments: the one-click unsubscribe link of an e-mail (RFC 8058,
 * gateway `delivery/email.controller.ts`) carries its token in the path, where a mail client posts it.
 */
export const SECRET_PATH_PREFIXES: readonly string[] = ['/api/email/unsubscribe/'];

/** Path segments that are credentials themselves: a Telegram Bot API URL holds the bot's token (`/bot<token>/…`). */
const SECRET_SEGMENTS = [/^bot\d+:[\w-]+$/];

const prefixSegments = SECRET_PATH_PREFIXES.map((p) => p.split('/').filter(Boolean));

/**
 * The URL with the value of every credential parameter (`token`, `access_token`, `jwt`, `api_key`, `key`,
 * `signature`, in any case, escaped or not) and every secret path segment (the one after a SECRET_PATH_PREFIXES
 * path, wherever it starts, escaped or not; a bot token) replaced by `[redacted]`; the rest is kept as sent. For logs.
 */
export function redactUrl(url: unknown): unknown {
  if (typeof url !== 'string') return url;
  const end = url.search(/[?#]/);
  const path = redactPath(end < 0 ? url : url.slice(0, end));
  if (end < 0 || url[end] === '#') return path + (end < 0 ? '' : url.slice(end));
  const q = end;
  const hash = url.indexOf('#', q);
  const query = url.slice(q + 1, hash < 0 ? undefined : hash);
  const redacted = query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      return SECRET_PARAMS.has(decoded(name).toLowerCase()) ? `${name}=[redacted]` : pair;
    })
    .join('&');
  return path + '?' + redacted + (hash < 0 ? '' : url.slice(hash));
}

/** The path (or absolute URL without query) with its secret segments replaced. */
function redactPath(path: string): string {
  const origin = /^[a-z][a-z\d+.-]*:\/\/[^/]*/i.exec(path)?.[0] ?? '';
  const segments = path.slice(origin.length).split('/');
  // Compared decoded and in any case, skipping empty segments (`//`): as a router may match them.
  const named = segments.map((s, i) => ({ i, name: decoded(s).toLowerCase() })).filter((s) => s.name !== '');
  let changed = false;
  named.forEach((s, k) => {
    const afterPrefix = prefixSegments.some((p) => k >= p.length && p.every((seg, j) => named[k - p.length + j]!.name === seg));
    if (afterPrefix || SECRET_SEGMENTS.some((re) => re.test(decoded(segments[s.i]!)))) {
      segments[s.i] = '[redacted]';
      changed = true;
    }
  });
  return changed ? origin + segments.join('/') : path;
}

function decoded(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' ')).trim();
  } catch {
    return s;
  }
}
