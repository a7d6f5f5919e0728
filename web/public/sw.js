/* global self, URL */
// The web client's service worker: shows a web push as a notification and opens its page on a click. Plain
// JavaScript served as it is at /sw.js (scope: the whole site); the payload is what the delivery service sends
// (services/delivery/src/push/push-payload.ts): {"title", "body", "url", "tag"}.
'use strict';

const FALLBACK_TITLE = 'Invest tracker';

/** The notification of a push: its title and options; a payload that is not JSON is shown as the body. */
function notificationOf(data) {
  let message = {};
  if (data) {
    try {
      message = data.json() ?? {};
    } catch {
      message = { body: data.text() };
    }
  }
  const text = (v) => (typeof v === 'string' ? v : '');
  const options = { body: text(message.body), data: { url: pageUrl(text(message.url)) } };
  if (text(message.tag)) options.tag = message.tag;
  return { title: text(message.title) || FALLBACK_TITLE, options };
}

/**
 * The page a click opens, always on this site: a link to another origin (the server's PUBLIC_BASE_URL naming
 * another host for the same app) keeps its path here; none, a bad one or another scheme is the inbox.
 */
function pageUrl(url) {
  const origin = self.location.origin;
  const inbox = new URL('/notifications', origin).href;
  let u;
  try {
    u = new URL(url || inbox, origin);
  } catch {
    return inbox;
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return inbox;
  return u.origin === origin ? u.href : new URL(u.pathname + u.search + u.hash, origin).href;
}

/** A tab already showing the page is brought forward; otherwise a new one opens. */
async function openPage(url) {
  const tabs = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const open = tabs.find((tab) => tab.url === url);
  if (open) return open.focus();
  return self.clients.openWindow(url);
}

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('push', (event) => {
  const { title, options } = notificationOf(event.data);
  event.waitUntil(self.registration.showNotification(title, options));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  event.waitUntil(openPage(event.notification.data?.url ?? pageUrl('')));
});
