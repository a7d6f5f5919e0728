/**
 * A 401 (or an expired token) signs out only the token it concerns: another
 * tab's sign-in reaches this tab first in localStorage and only later as a `storage` event (a task of its own); in
 * between, this tab's in-memory session is the old one.
 */
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { stubBrowserGlobals } from './testing/browser-globals';

const store = stubBrowserGlobals();

let client: typeof import('./api/client');
let session: typeof import('./session');
beforeAll(async () => {
  client = await import('./api/client');
  session = await import('./session');
});
afterEach(() => {
  vi.unstubAllGlobals();
  stubBrowserGlobals(store);
});

const KEY = 'invest.session';
const other = { token: 'token-B', userId: 'u2', expiresAt: Date.now() + 3_600_000 };

describe('sign-out races between tabs', () => {
  it('a 401 to the old token does not erase the session another tab has just stored', async () => {
    session.signIn({ token: 'token-A', userId: 'u1', expiresAt: Date.now() + 3_600_000 });
    vi.stubGlobal('fetch', async () => {
      // Meanwhile another tab signs in: localStorage has its session, this tab's storage event is still queued.
      store.set(KEY, JSON.stringify(other));
      return new Response('{}', { status: 401 });
    });
    await client.sendRequest('/api/portfolios', { method: 'GET', headers: {} });
    expect(store.get(KEY)).toBe(JSON.stringify(other));
  });

  it('an expired in-memory session does not erase the session another tab has just stored', async () => {
    session.signIn({ token: 'token-A', userId: 'u1', expiresAt: Date.now() + 20 });
    store.set(KEY, JSON.stringify(other));
    await new Promise((r) => setTimeout(r, 40));
    session.getSession();
    expect(store.get(KEY)).toBe(JSON.stringify(other));
  });
});
