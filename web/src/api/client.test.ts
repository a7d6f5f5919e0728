/**
 * The JSON calls (openapi-fetch with sendRequest as its fetch): what a request carries and how answers map. The
 * browser globals the client modules touch at import are stubbed; fetch is scripted per test.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { stubBrowserGlobals } from '../testing/browser-globals';

const store = stubBrowserGlobals(new Map([['invest.locale', 'ru']]));
// A page resolves `/api/...` against its own address; Node's Request needs an absolute URL.
vi.stubGlobal(
  'Request',
  class extends Request {
    constructor(input: RequestInfo | URL, init?: RequestInit) {
      super(typeof input === 'string' ? new URL(input, 'http://page.test') : input, init);
    }
  },
);

let client: typeof import('./client');
let session: typeof import('../session');
let errors: typeof import('./api-error');

beforeAll(async () => {
  client = await import('./client');
  session = await import('../session');
  errors = await import('./api-error');
});

beforeEach(() => session.signIn({ token: 'token-1', userId: 'u1', expiresAt: Date.now() + 3_600_000 }));

afterEach(() => {
  vi.unstubAllGlobals();
  stubBrowserGlobals(store);
});

interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** Answers every request with `answer()`; what was sent, as the network saw it. */
function serve(answer: () => Response): Sent[] {
  const sent: Sent[] = [];
  vi.stubGlobal('fetch', async (input: Request, init: { headers: Record<string, string> }) => {
    sent.push({ method: input.method, url: input.url, headers: init.headers, body: await input.text() });
    return answer();
  });
  return sent;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

describe('a JSON call', () => {
  it('sends the body, the locale, the token and the Idempotency-Key; answers the parsed JSON', async () => {
    const sent = serve(() => json(201, { data: { id: 7, name: 'Main' } }));
    const answer = await client.api.post('/api/portfolios', { body: { name: 'Main', currency_code: 'RUB' }, idempotencyKey: 'key-1' });
    expect(answer).toEqual({ data: { id: 7, name: 'Main' } });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ method: 'POST', url: 'http://page.test/api/portfolios', body: '{"name":"Main","currency_code":"RUB"}' });
    expect(sent[0]!.headers).toMatchObject({
      accept: 'application/json',
      'content-type': 'application/json',
      'accept-language': 'ru',
      authorization: 'Bearer token-1',
      'idempotency-key': 'key-1',
    });
  });

  it('fills the path and the query', async () => {
    const sent = serve(() => json(200, { data: [], meta: {} }));
    await client.api.get('/api/portfolios/{id}/deals', { path: { id: 5 }, query: { per_page: '100' } });
    expect(sent[0]).toMatchObject({ method: 'GET', url: 'http://page.test/api/portfolios/5/deals?per_page=100', body: '' });
    expect(sent[0]!.headers['content-type']).toBeUndefined();
  });

  it('answers undefined for a 204', async () => {
    serve(() => new Response(null, { status: 204 }));
    await expect(client.api.delete('/api/portfolios/{id}/deals/{dealId}', { path: { id: 5, dealId: 9 } })).resolves.toBeUndefined();
  });
});

describe('a JSON call that fails', () => {
  it('rejects with the ApiError of the answer (field errors of a 422, when a 429 resets)', async () => {
    serve(() => json(422, { message: 'The name field is required.', errors: { name: ['The name field is required.'] } }));
    const invalid = await client.api.post('/api/portfolios', { body: { name: '', currency_code: 'RUB' } }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(errors.ApiError);
    expect(invalid).toMatchObject({ status: 422, kind: 'validation', fieldErrors: { name: ['The name field is required.'] } });

    serve(() => json(429, { message: 'Too Many Attempts.', resets_at: '2030-01-01T00:00:00Z' }));
    expect(await client.api.get('/api/portfolios').catch((e: unknown) => e)).toMatchObject({ kind: 'rate_limited', resetsAt: '2030-01-01T00:00:00Z' });
  });

  it('an answer that is not JSON is still its status', async () => {
    serve(() => new Response('<html>Bad gateway</html>', { status: 502 }));
    expect(await client.api.get('/api/portfolios').catch((e: unknown) => e)).toMatchObject({ status: 502, kind: 'unavailable' });
  });

  it('a 401 signs the user out', async () => {
    serve(() => json(401, { message: 'Unauthenticated.' }));
    expect(await client.api.get('/api/portfolios').catch((e: unknown) => e)).toMatchObject({ kind: 'unauthenticated' });
    expect(session.getSession()).toBeNull();
  });

  it('no answer at all is "no connection"', async () => {
    vi.stubGlobal('fetch', async () => {
      throw new TypeError('Failed to fetch');
    });
    const caught = await client.api.get('/api/portfolios').catch((e: unknown) => e);
    expect(errors.describeError(caught, 'en')).toBe('No connection to the server. Check your network.');
  });
});
