/** The tests' HTTP client of the gateway: one call as a user, the answer read loosely. */

export interface ApiOptions {
  /** Sends a bearer token of this user when given. */
  user?: string;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is (with a JSON content type unless `headers` names one). */
  raw?: string;
  headers?: Record<string, string>;
}

export interface ApiAnswer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies are read loosely; the assertions check their shape
  body: any;
  text: string;
}

/**
 * An HTTP call to the gateway at `base`: the answer's body parsed when its content type is JSON (else its text;
 * nothing when empty), and its text.
 */
export function gatewayApi(base: string, token: (userId: string) => Promise<string>) {
  return async (method: string, path: string, opts: ApiOptions = {}): Promise<ApiAnswer> => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.user) headers.authorization = `Bearer ${await token(opts.user)}`;
    if (opts.body !== undefined || opts.raw !== undefined) headers['content-type'] ??= 'application/json';
    const res = await fetch(new URL(path, base), { method, headers, body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)) });
    const text = await res.text();
    // JSON only when the gateway says so (a JSON body under another type fails the test's reading of it).
    return { status: res.status, body: res.headers.get('content-type')?.includes('json') ? JSON.parse(text || 'null') : text || undefined, text };
  };
}

/** An answer's text as JSON when it is JSON, else the text itself; nothing when empty. */
export function looseBody(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
