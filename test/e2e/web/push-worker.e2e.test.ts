/**
 * The service worker in a real Chromium: the page registers /sw.js as the web client does, and a push delivered
 * through DevTools (`ServiceWorker.deliverPushMessage`, plain data: headless Chromium cannot subscribe without
 * Google's push service) becomes a notification with the payload's title, body, tag and link. The click is tested
 * as a plain function (web/src/push/service-worker.test.ts): no DevTools command clicks a notification.
 */
import { createLogger } from '@invest/platform';
import { eventually, testNatsUrl, uniqueName } from '@invest/platform/testing/index';
import { createGatewayApp, type GatewayApp } from '@invest/gateway/gateway.app';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.js';

let gw: GatewayApp;
let base: string;
let browser: Browser;

beforeAll(async () => {
  // Only the gateway: it serves the built web client, /sw.js included; no API call is made.
  gw = await createGatewayApp({ natsUrl: testNatsUrl(), busPrefix: `${uniqueName('pushsw')}.`, logger: createLogger('test', 'silent') });
  [base, browser] = await Promise.all([gw.listen(0, '127.0.0.1'), launchBrowser()]);
}, 300_000);
afterAll(async () => {
  await browser?.close();
  await gw?.close();
});

interface Shown {
  title: string;
  body: string;
  tag: string;
  data: { url: string };
}

describe('service worker in Chromium', () => {
  it('a push shows a notification with the title, body and tag, and keeps the page to open', async () => {
    const context = await browser.newContext();
    await context.grantPermissions(['notifications'], { origin: base });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    const registrations: { registrationId: string; scopeURL: string; isDeleted: boolean }[] = [];
    cdp.on('ServiceWorker.workerRegistrationUpdated', (e: { registrations: typeof registrations }) => registrations.push(...e.registrations));
    await cdp.send('ServiceWorker.enable');

    await page.goto(`${base}/`);
    const scope = await page.evaluate(`navigator.serviceWorker.register('/sw.js', { scope: '/' }).then(() => navigator.serviceWorker.ready).then((r) => r.scope)`);
    expect(scope).toBe(`${base}/`);
    const registration = await eventually(
      () => Promise.resolve(registrations.find((r) => r.scopeURL === `${base}/` && !r.isDeleted)),
      Boolean,
      'the worker registration seen by DevTools',
    );

    const payload = { title: 'LKOH +5,2 %: 3 уведомления', body: 'LKOH выше 7000 ₽\nLKOH +5,2 % за день', url: `${base}/notifications`, tag: 'firing-42' };
    await cdp.send('ServiceWorker.deliverPushMessage', { origin: base, registrationId: registration!.registrationId, data: JSON.stringify(payload) });

    const shown = await eventually(
      () => page.evaluate(`navigator.serviceWorker.ready.then((r) => r.getNotifications()).then((ns) => ns.map((n) => ({ title: n.title, body: n.body, tag: n.tag, data: n.data })))`) as Promise<Shown[]>,
      (ns) => ns.length > 0,
      'the notification shown',
    );
    expect(shown).toEqual([{ title: payload.title, body: payload.body, tag: 'firing-42', data: { url: `${base}/notifications` } }]);
    await context.close();
  });
});
