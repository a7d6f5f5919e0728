/**
 * Conditional GET (RFC 9110 §13.1.2): whether an `If-None-Match` field matches the current entity tag, so
 * the answer is 304 Not Modified instead of the page.
 */

/**
 * The entity tags listed in an `If-None-Match` value, without their `W/` (the comparison is weak), or `'*'`.
 * Empty list elements and whitespace are skipped, as the list syntax allows; a malformed element ends the
 * list (what came before it still counts).
 */
export function parseIfNoneMatch(value: string): string[] | '*' {
  if (value.trim() === '*') return '*';
  const tags: string[] = [];
  let i = 0;
  const n = value.length;
  while (i < n) {
    const c = value.charCodeAt(i);
    if (c === 32 || c === 9 || c === 44 /* , */) {
      i++;
      continue;
    }
    let start = i;
    if (value.startsWith('W/', i)) start = i + 2;
    if (value.charCodeAt(start) !== 34 /* " */) break;
    const end = value.indexOf('"', start + 1);
    if (end < 0) break;
    tags.push(value.slice(start, end + 1));
    i = end + 1;
  }
  return tags;
}

/**
 * Whether `If-None-Match` (one field, or several when repeated) matches `etag` (`"…"` or `W/"…"`) by weak
 * comparison: `*`, or any listed tag with the same opaque tag, whether either is weak or not.
 */
export function ifNoneMatchMatches(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const opaque = etag.startsWith('W/') ? etag.slice(2) : etag;
  for (const value of Array.isArray(header) ? header : [header]) {
    const tags = parseIfNoneMatch(value);
    if (tags === '*' || tags.includes(opaque)) return true;
  }
  return false;
}
