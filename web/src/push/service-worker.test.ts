/// <reference types="vite/client" />
/**
 * The service worker (`web/public/sw.js`) as it is served, run against a stand-in of its global scope: what a push
 * shows, and what a click opens. (Headless Chromium cannot subscribe without Google's push service, and no DevTools
 * command clicks a notification, so the handlers are driven here as plain functions.)
 */
import { describe, expect, it } from 'vitest';
import source from '../../public/sw.js?raw';

type Handler = (event: unknown) => void;

/** Loads the worker into a fresh scope at `origin` with these open tabs; returns its handlers and what it did. */
function loadWorker(origin = 'https://invest.example', tabs: { url: string }[] = []) {
  const handlers = new Map<string, Handler>();
  const shown: { title: string; options: Record<string, unknown> }[] = [];
  const opened: string[] = [];
  const focused: string[] = [];
  const scope = {
    location: new URL(`${origin}/sw.js`),
    addEventListener: (type: string, handler: Handler) => handlers.set(type, handler),
    skipWaiting: () => Promise.resolve(),
    registration: {
      showNotification: (title: string, options: Record<string, unknown>) => {
        shown.push({ title, options });
        return Promise.resolve();
      },
    },
    clients: {
      claim: () => Promise.resolve(),
      matchAll: () => Promise.resolve(tabs.map((t) => ({ url: t.url, focus: () => Promise.resolve(void focused.push(t.url)) }))),
      openWindow: (url: string) => Promise.resolve(void opened.push(url)),
    },
  };
  new Function('self', source)(scope);
  /** Fires an event the way the browser does and waits for what it handed to waitUntil. */
  const fire = async (type: string, event: object) => {
    let work: Promise<unknown> = Promise.resolve();
    handlers.get(type)!({ ...event, waitUntil: (p: Promise<unknown>) => (work = p) });
    await work;
  };
  const push = (data: unknown) =>
    fire('push', {
      data:
        data === null
          ? null
          : {
              json: () => (typeof data === 'string' ? JSON.parse(data) : data),
              text: () => (typeof data === 'string' ? data : JSON.stringify(data)),
            },
    });
  const click = async (data: unknown) => {
    let closed = false;
    await fire('notificationclick', { action: '', notification: { data, close: () => (closed = true) } });
    return closed;
  };
  return { handlers, shown, opened, focused, push, click };
}

describe('service worker', () => {
  it('listens for push and notificationclick', () => {
    const { handlers } = loadWorker();
    expect([...handlers.keys()].sort()).toEqual(['activate', 'install', 'notificationclick', 'push']);
  });

  it('shows a push as its title and body, tagged, with the page to open', async () => {
    const w = loadWorker();
    await w.push({ title: 'LKOH +5,2 %: 3 уведомления', body: 'LKOH выше 7000 ₽\nLKOH +5,2 % за день', url: 'https://invest.example/notifications/7', tag: 'firing-42' });
    expect(w.shown).toEqual([
      {
        title: 'LKOH +5,2 %: 3 уведомления',
        options: { body: 'LKOH выше 7000 ₽\nLKOH +5,2 % за день', tag: 'firing-42', data: { url: 'https://invest.example/notifications/7' } },
      },
    ]);
  });

  it('a push without data, or with text that is not JSON, still shows something', async () => {
    const w = loadWorker();
    await w.push(null);
    await w.push('plain words');
    expect(w.shown).toEqual([
      { title: 'Invest tracker', options: { body: '', data: { url: 'https://invest.example/notifications' } } },
      { title: 'Invest tracker', options: { body: 'plain words', data: { url: 'https://invest.example/notifications' } } },
    ]);
  });

  it('a click closes the notification and opens its page', async () => {
    const w = loadWorker();
    expect(await w.click({ url: 'https://invest.example/notifications/7' })).toBe(true);
    expect(w.opened).toEqual(['https://invest.example/notifications/7']);
  });

  it('a click brings forward a tab already showing the page instead of opening another', async () => {
    const w = loadWorker('https://invest.example', [{ url: 'https://invest.example/portfolios' }, { url: 'https://invest.example/notifications' }]);
    await w.click({ url: 'https://invest.example/notifications' });
    expect(w.focused).toEqual(['https://invest.example/notifications']);
    expect(w.opened).toEqual([]);
  });

  it('never leaves the site: a link to another origin keeps its path here; another scheme or none is the inbox', async () => {
    const w = loadWorker('http://127.0.0.1:3000');
    await w.push({ title: 't', body: 'b', url: 'http://localhost:3000/notifications?id=7#top' });
    await w.push({ title: 't', body: 'b', url: 'javascript:alert(1)' });
    expect(w.shown.map((s) => (s.options.data as { url: string }).url)).toEqual(['http://127.0.0.1:3000/notifications?id=7#top', 'http://127.0.0.1:3000/notifications']);
    await w.click(undefined);
    expect(w.opened).toEqual(['http://127.0.0.1:3000/notifications']);
  });
});
