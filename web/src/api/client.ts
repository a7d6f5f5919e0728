import { getLocale } from '../i18n';
import { getSession, signOut } from '../session';
import { ApiError, apiErrorFrom } from './api-error';
import type { paths } from './openapi';

/**
 * Typed calls of the gateway's API. Paths, parameters, bodies and answers come from `openapi.d.ts`, generated
 * by the build from the gateway's OpenAPI document: a route or schema change the client does not follow fails
 * the web typecheck, hence the build.
 */
type Method = 'get' | 'post' | 'patch' | 'delete';
type Op<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
export type PathsWith<M extends Method> = { [P in keyof paths]: paths[P][M] extends undefined | never ? never : P }[keyof paths];

type JsonOf<R> = R extends { content: { 'application/json': infer J } } ? J : undefined;
type Responses<O> = O extends { responses: infer R } ? R : never;
/** The JSON of the operation's success answer (200 or 201; undefined for 204). */
export type OkBody<O> = 200 extends keyof Responses<O> ? JsonOf<Responses<O>[200]> : 201 extends keyof Responses<O> ? JsonOf<Responses<O>[201]> : undefined;
type RequestBody<O> = O extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
type PathParams<O> = O extends { parameters: { path: infer Q } } ? Q : never;
type QueryParams<O> = O extends { parameters: { query?: infer Q } } ? Q : never;

export type Answer<P extends keyof paths, M extends Method> = OkBody<Op<P, M>>;
/** The JSON body an operation takes. */
export type BodyOf<P extends keyof paths, M extends Method> = RequestBody<Op<P, M>>;

interface CallOptions<O> {
  path?: PathParams<O> extends never ? undefined : PathParams<O>;
  query?: QueryParams<O> extends never ? Record<string, string> : QueryParams<O> | Record<string, string>;
  body?: RequestBody<O>;
  /** Idempotency-Key of a create: one per intent, so a retried click records once. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/** `/api/portfolios/{id}` with `{id: 5}` → `/api/portfolios/5`. */
export function fillPath(template: string, params: Record<string, unknown> = {}): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = params[name];
    if (v === undefined || v === null) throw new Error(`missing path parameter ${name}`);
    return encodeURIComponent(String(v));
  });
}

/**
 * fetch with the locale and the session's token. No answer at all (offline, DNS, connection refused) is the
 * ApiError of status 0 (`network`); an abort is rethrown as it is. A 401 to the token it sent signs the user out
 * (that token is of no use any more; the next screen asks to sign in), unless another sign-in replaced it meanwhile.
 * Every call goes through here: the JSON calls below and the event streams (event-stream.ts).
 */
export async function sendRequest(url: string, init: Omit<RequestInit, 'headers'> & { headers: Record<string, string> }): Promise<Response> {
  const token = getSession()?.token;
  const headers: Record<string, string> = { 'accept-language': getLocale(), ...(token ? { authorization: `Bearer ${token}` } : {}), ...init.headers };
  let res: Response;
  try {
    res = await fetch(url, { ...init, headers });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'network', (err as Error).message);
  }
  if (res.status === 401 && token) signOut(token);
  return res;
}

/** Performs a request; the parsed JSON on success, an ApiError otherwise (status 0: no answer at all). */
export async function call<M extends Method, P extends PathsWith<M>>(method: M, path: P, opts: CallOptions<Op<P, M>> = {}): Promise<Answer<P, M>> {
  let url = fillPath(path as string, opts.path as Record<string, unknown> | undefined);
  if (opts.query) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(opts.query as Record<string, unknown>)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
    const s = q.toString();
    if (s) url += `?${s}`;
  }
  const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  if (opts.idempotencyKey) headers['idempotency-key'] = opts.idempotencyKey;
  const res = await sendRequest(url, { method: method.toUpperCase(), headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body), signal: opts.signal });
  if (res.status === 204) return undefined as Answer<P, M>;
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!res.ok) throw apiErrorFrom(res.status, json, res.headers.get('retry-after'));
  return json as Answer<P, M>;
}

export const api = {
  get: <P extends PathsWith<'get'>>(path: P, opts?: CallOptions<Op<P, 'get'>>) => call('get', path, opts),
  post: <P extends PathsWith<'post'>>(path: P, opts?: CallOptions<Op<P, 'post'>>) => call('post', path, opts),
  patch: <P extends PathsWith<'patch'>>(path: P, opts?: CallOptions<Op<P, 'patch'>>) => call('patch', path, opts),
  delete: <P extends PathsWith<'delete'>>(path: P, opts?: CallOptions<Op<P, 'delete'>>) => call('delete', path, opts),
};

/** A fresh Idempotency-Key. */
export const newKey = (): string => crypto.randomUUID();
