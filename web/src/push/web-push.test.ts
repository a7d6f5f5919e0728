/**
 * subscribeToPush / unsubscribeFromPush against a scripted browser (service worker registration, PushManager,
 * notification permission) and a scripted API: what is asked of the browser and what is sent to the server.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { stubBrowserGlobals } from '../testing/browser-globals';

const SERVER_KEY = 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM';
const store = stubBrowserGlobals(new Map([['invest.locale', 'ru']]));

let push: typeof import('./web-push');
let session: typeof import('../session');

class FakeSubscription {
  unsubscribed = false;
  constructor(
    readonly endpoint: string,
    readonly key: Uint8Array,
  ) {}
  get options() {
    return { applicationServerKey: this.key.buffer, userVisibleOnly: true };
  }
  toJSON() {
    return { endpoint: this.endpoint, expirationTime: null, keys: { p256dh: `p256dh-of-${this.endpoint.slice(-1)}`, auth: 'auth-secret-16bytes' } };
  }
  unsubscribe() {
    this.unsubscribed = true;
    browser.current = null;
    return Promise.resolve(true);
  }
}

/** The browser's side: its current subscription, and what it was asked. */
const browser = {
  permission: 'granted' as NotificationPermission,
  current: null as FakeSubscription | null,
  made: [] as FakeSubscription[],
  registered: [] as string[],
};

function stubBrowser() {
  stubBrowserGlobals(store);
  vi.stubGlobal('window', { addEventListener: () => undefined, isSecureContext: true, PushManager: class {}, Notification: class {} });
  vi.stubGlobal('Notification', { requestPermission: () => Promise.resolve(browser.permission) });
  const pushManager = {
    getSubscription: () => Promise.resolve(browser.current),
    subscribe: (opts: { applicationServerKey: Uint8Array }) => {
      const sub = new FakeSubscription(`https://push.example/send/${browser.made.length + 1}`, opts.applicationServerKey);
      browser.made.push(sub);
      browser.current = sub;
      return Promise.resolve(sub);
    },
  };
  const registration = { pushManager };
  vi.stubGlobal('navigator', {
    language: 'ru',
    serviceWorker: {
      register: (url: string) => Promise.resolve(void browser.registered.push(url)).then(() => registration),
      ready: Promise.resolve(registration),
      getRegistration: () => Promise.resolve(registration),
    },
  });
  vi.stubGlobal(
    'Request',
    class extends Request {
      constructor(input: RequestInfo | URL, init?: RequestInit) {
        super(typeof input === 'string' ? new URL(input, 'http://page.test') : input, init);
      }
    },
  );
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/** Answers by method and path; records what was sent. */
function serve(answers: Record<string, (() => Response)[]>) {
  const sent: { method: string; path: string; body: string }[] = [];
  vi.stubGlobal('fetch', async (input: Request) => {
    const path = new URL(input.url).pathname;
    sent.push({ method: input.method, path, body: await input.text() });
    const next = answers[`${input.method} ${path}`]?.shift();
    if (!next) throw new Error(`unexpected ${input.method} ${path}`);
    return next();
  });
  return sent;
}

beforeAll(async () => {
  stubBrowser();
  push = await import('./web-push');
  session = await import('../session');
});
beforeEach(() => {
  stubBrowser();
  Object.assign(browser, { permission: 'granted', current: null, made: [], registered: [] });
  session.signIn({ token: 'token-1', userId: 'u1', expiresAt: Date.now() + 3_600_000 });
});
afterEach(() => vi.unstubAllGlobals());

describe('subscribeToPush', () => {
  it('registers /sw.js, subscribes with the server key and stores the subscription', async () => {
    const sent = serve({ 'GET /api/push-subscriptions/key': [() => json(200, { data: { public_key: SERVER_KEY } })], 'POST /api/push-subscriptions': [() => json(201, { data: {} })] });
    await push.subscribeToPush();
    expect(browser.registered).toEqual(['/sw.js']);
    expect(browser.made).toHaveLength(1);
    expect([...browser.made[0]!.key]).toEqual([...push.base64urlBytes(SERVER_KEY)]);
    expect(browser.made[0]!.key).toHaveLength(65);
    expect(JSON.parse(sent[1]!.body)).toEqual({ endpoint: 'https://push.example/send/1', expirationTime: null, keys: { p256dh: 'p256dh-of-1', auth: 'auth-secret-16bytes' } });
  });

  it('keeps a subscription made with the same key; replaces one made with another', async () => {
    browser.current = new FakeSubscription('https://push.example/send/old', push.base64urlBytes(SERVER_KEY));
    serve({ 'GET /api/push-subscriptions/key': [() => json(200, { data: { public_key: SERVER_KEY } })], 'POST /api/push-subscriptions': [() => json(201, { data: {} })] });
    await push.subscribeToPush();
    expect(browser.made).toEqual([]);

    const stale = new FakeSubscription('https://push.example/send/stale', new Uint8Array(65).fill(4));
    browser.current = stale;
    const sent = serve({ 'GET /api/push-subscriptions/key': [() => json(200, { data: { public_key: SERVER_KEY } })], 'POST /api/push-subscriptions': [() => json(201, { data: {} })] });
    await push.subscribeToPush();
    expect(stale.unsubscribed).toBe(true);
    expect(JSON.parse(sent[1]!.body).endpoint).toBe('https://push.example/send/1');
  });

  it("a 409 (the endpoint is another user's) drops it and stores a fresh subscription", async () => {
    const sent = serve({
      'GET /api/push-subscriptions/key': [() => json(200, { data: { public_key: SERVER_KEY } })],
      'POST /api/push-subscriptions': [() => json(409, { message: 'This push subscription belongs to another user.' }), () => json(201, { data: {} })],
    });
    await push.subscribeToPush();
    expect(browser.made.map((s) => s.unsubscribed)).toEqual([true, false]);
    expect(sent.filter((s) => s.method === 'POST').map((s) => JSON.parse(s.body).endpoint)).toEqual(['https://push.example/send/1', 'https://push.example/send/2']);
  });

  it('says why it cannot: blocked, dismissed, server without keys, unsupported', async () => {
    browser.permission = 'denied';
    await expect(push.subscribeToPush()).rejects.toMatchObject({ problem: 'denied' });
    browser.permission = 'default';
    await expect(push.subscribeToPush()).rejects.toMatchObject({ problem: 'dismissed' });
    browser.permission = 'granted';
    serve({ 'GET /api/push-subscriptions/key': [() => json(503, { message: 'Web push is not configured on this server.', outcome: 'not_done' })] });
    await expect(push.subscribeToPush()).rejects.toMatchObject({ problem: 'server-off' });
    expect(browser.made).toEqual([]);
    vi.stubGlobal('window', { addEventListener: () => undefined, isSecureContext: false });
    await expect(push.subscribeToPush()).rejects.toMatchObject({ problem: 'unsupported' });
    expect(push.pushProblemText('denied', 'ru')).toBe('Уведомления для сайта запрещены в настройках браузера.');
    expect(push.pushProblemText('denied', 'en')).toBe('Notifications for this site are blocked in the browser settings.');
  });
});

describe('base64urlBytes', () => {
  it('reads base64url without padding, as the API gives keys', () => {
    expect([...push.base64urlBytes('AQID_-8')]).toEqual([1, 2, 3, 255, 239]);
  });
});

describe('unsubscribeFromPush', () => {
  it('tells the server which endpoint to forget, then drops the subscription in the browser', async () => {
    const sub = new FakeSubscription('https://push.example/send/9', push.base64urlBytes(SERVER_KEY));
    browser.current = sub;
    const sent = serve({ 'DELETE /api/push-subscriptions': [() => new Response(null, { status: 204 })] });
    expect(await push.pushSubscribed()).toBe(true);
    await push.unsubscribeFromPush();
    expect(sent).toEqual([{ method: 'DELETE', path: '/api/push-subscriptions', body: '{"endpoint":"https://push.example/send/9"}' }]);
    expect(sub.unsubscribed).toBe(true);
    expect(await push.pushSubscribed()).toBe(false);
  });

  it('drops the browser subscription even when the server cannot be told', async () => {
    const sub = new FakeSubscription('https://push.example/send/9', push.base64urlBytes(SERVER_KEY));
    browser.current = sub;
    serve({ 'DELETE /api/push-subscriptions': [() => json(503, { message: 'down', outcome: 'unknown' })] });
    await expect(push.unsubscribeFromPush()).rejects.toMatchObject({ status: 503 });
    expect(sub.unsubscribed).toBe(true);
  });

  it('does nothing without a subscription', async () => {
    const sent = serve({});
    await push.unsubscribeFromPush();
    expect(sent).toEqual([]);
  });
});
