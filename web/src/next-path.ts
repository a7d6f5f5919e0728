const FALLBACK = '/portfolios';

/**
 * Where to go after signing in (`?next=`): a path of this site (path, query and fragment of the URL it resolves to
 * against `origin`), else /portfolios. A backslash or a control character is refused outright (browsers read
 * `/\evil.example` as `//evil.example`), as is anything resolving to another origin, and /sign-in itself.
 */
export function nextPath(search: string, origin: string): string {
  const next = new URLSearchParams(search).get('next') ?? '';
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (!next.startsWith('/') || /[\\\u0000-\u001f\u007f]/.test(next)) return FALLBACK;
  let url: URL;
  try {
    url = new URL(next, origin);
  } catch {
    return FALLBACK;
  }
  // `/.//evil.example` resolves to the path `//evil.example`, which a later navigation would read as another host.
  if (url.origin !== origin || url.pathname === '/sign-in' || url.pathname.startsWith('//')) return FALLBACK;
  return url.pathname + url.search + url.hash;
}
