/**
 * The notification screens of issue 32 in a real browser (support/browser-stack.ts): the price-target dialog
 * that asks for the direction, the unread count in the navigation (live from the event stream, down on
 * mark-read), one toast per move, and the notification settings screen against the delivery service. Each screen
 * leaves screenshots at desktop and phone width in .runtime/screenshots/.
 */
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { screenshot } from '../support/browser.js';
import { type FreshPage, useBrowserStack } from '../support/browser-stack.js';
import type { WebStack } from '../support/web-stack.js';

let stack: WebStack;
let freshPage: FreshPage;
useBrowserStack('web_notif', { tickers: ['SBER', 'GAZP', 'LKOH'] }, (s) => ({ stack, freshPage } = s));

const PHONE = { width: 390, height: 844 };
const newUser = () => `webn-${randomUUID().slice(0, 8)}`;

/** Signs in through the development form, as a person would. */
async function signIn(page: Page, userId: string): Promise<void> {
  await page.goto(stack.base + '/sign-in');
  await page.locator('[data-testid="sign-in-user-id"]').fill(userId);
  await page.locator('[data-testid="sign-in-submit"]').click();
  await page.locator('[data-testid="signed-in-user"]').filter({ hasText: userId }).waitFor();
}

/** The screener's current rate of a share, as the dialog gets it. */
async function screenerRate(ticker: string): Promise<number> {
  const res = await stack.api('GET', `/api/public/shares?search=${ticker}`);
  const row = (res.body.data as { asset: string; current_rate: number }[]).find((r) => r.asset === ticker);
  expect(row, ticker).toBeDefined();
  return row!.current_rate;
}

/** The page does not scroll sideways at its width. */
async function expectNoSidewaysScroll(page: Page): Promise<void> {
  expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBeLessThanOrEqual(0);
}

describe('price-target dialog: above or below, with the distance from the current price', () => {
  it('starts empty, shows the distance as one types, refuses a target already reached in the chosen direction, sends the direction', async () => {
    const page = await freshPage({ locale: 'ru-RU' });
    const user = newUser();
    await signIn(page, user);
    await page.goto(stack.base + '/?search=SBER');
    await page.locator('[data-testid="screener-row"][data-ticker="SBER"] [data-testid="row-create-alert"]').click();
    const rate = await screenerRate('SBER');
    const target = page.locator('[data-testid="alert-target-price"]');
    // Never the current price as the target.
    expect(await target.inputValue()).toBe('');
    expect(await page.locator('[data-testid="alert-direction-above"]').textContent()).toBe('Выше');
    expect(await page.locator('[data-testid="alert-direction-below"]').textContent()).toBe('Ниже');

    // 5 % under the rate: the distance says so as it is typed, and the direction follows it.
    const below = (Math.round(rate * 95) / 100).toFixed(2);
    await target.fill(below.replace('.', ','));
    const distance = page.locator('[data-testid="alert-distance"]');
    await expect.poll(async () => Number(await distance.getAttribute('data-value'))).toBeCloseTo((Number(below) / rate - 1) * 100, 3);
    expect(await distance.textContent()).toMatch(/^-(5,0\d|4,9\d) % от текущей$/);
    await page.locator('[data-testid="alert-direction-below"][aria-checked="true"]').waitFor();
    await screenshot(page, 'alert-direction-ru');

    // Picked "above" for a price under the rate: already reached, said beside the field in Russian; nothing sent.
    await page.locator('[data-testid="alert-direction-above"]').click();
    await page.locator('[data-testid="alert-distance"][data-reached="true"]').waitFor();
    await page.locator('[data-testid="alert-submit"]').click();
    const fieldError = page.locator('[data-testid="field-error-target_price"]');
    await fieldError.waitFor();
    expect(await fieldError.textContent()).toMatch(/^Цель уже достигнута: цена сейчас .+\. Для «Выше» укажите цену больше текущей\.$/);
    await screenshot(page, 'alert-direction-reached-ru');
    expect((await stack.api('GET', '/api/notifications', { user })).body.data).toEqual([]);

    // "Below" it is: created with <=.
    await page.locator('[data-testid="alert-direction-below"]').click();
    await page.locator('[data-testid="alert-submit"]').click();
    await page.locator('[data-testid="alert-dialog"]').waitFor({ state: 'detached' });
    const alerts = (await stack.api('GET', '/api/notifications', { user })).body.data as { condition: { operator: string; value: number } }[];
    expect(alerts.map((a) => [a.condition.operator, a.condition.value])).toEqual([['<=', Number(below)]]);
  });

  it('at phone width in English: above by default for a higher target, distance with a plus', async () => {
    const page = await freshPage({ ...PHONE, locale: 'en-US' });
    const user = newUser();
    await signIn(page, user);
    await page.goto(stack.base + '/?search=GAZP');
    await page.locator('[data-testid="screener-row"][data-ticker="GAZP"] [data-testid="row-create-alert"]').click();
    const rate = await screenerRate('GAZP');
    const above = (Math.round(rate * 110) / 100).toFixed(2);
    await page.locator('[data-testid="alert-target-price"]').fill(above);
    const distance = page.locator('[data-testid="alert-distance"]');
    await expect.poll(() => distance.textContent()).toMatch(/^\+(9\.9\d|10\.0\d)% from now$/);
    await page.locator('[data-testid="alert-direction-above"][aria-checked="true"]').waitFor();
    await expectNoSidewaysScroll(page);
    await screenshot(page, 'alert-direction-phone');
    await page.locator('[data-testid="alert-submit"]').click();
    await page.locator('[data-testid="alert-dialog"]').waitFor({ state: 'detached' });
    const alerts = (await stack.api('GET', '/api/notifications', { user })).body.data as { condition: { operator: string } }[];
    expect(alerts.map((a) => a.condition.operator)).toEqual(['>=']);
  });
});

/** A price-target of `user` on `ticker` waiting for a rise to `factor` times the current rate; its target. */
async function riseAlert(user: string, ticker: string, factor: number): Promise<number> {
  const target = Math.round((await screenerRate(ticker)) * factor * 100) / 100;
  const created = await stack.api('POST', '/api/price-alert', { user, body: { target_price: target, assetable: stack.share(ticker), direction: 'above' } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return target;
}

/** The unread count of the inbox, as the API says it. */
async function apiUnread(user: string): Promise<number> {
  return (await stack.api('GET', '/api/notification-events?per_page=1', { user })).body.meta.unread_count;
}

describe('unread count in the navigation and one toast per move', () => {
  it('counts up live on firings, shows the firings of one batch as one toast, and goes away on mark-read', async () => {
    const page = await freshPage({ locale: 'ru-RU' });
    const user = newUser();
    await signIn(page, user);
    await page.locator('html[data-notification-stream="connected"]').waitFor();
    const badge = page.locator('[data-testid="nav-unread"]');
    expect(await badge.count()).toBe(0);

    // Three alerts on three shares; one rate batch moves all three past their targets, LKOH furthest.
    const targets = { SBER: await riseAlert(user, 'SBER', 1.01), GAZP: await riseAlert(user, 'GAZP', 1.02), LKOH: await riseAlert(user, 'LKOH', 1.03) };
    await page.evaluate('window.__sameDocument = true');
    await stack.publishRates([
      { ticker: 'SBER', rate: Math.round(targets.SBER * 101) / 100, change: 1.5, asOf: new Date() },
      { ticker: 'GAZP', rate: Math.round(targets.GAZP * 101) / 100, change: 2.5, asOf: new Date() },
      { ticker: 'LKOH', rate: Math.round(targets.LKOH * 101) / 100, change: 5.2, asOf: new Date() },
    ]);
    await page.locator('[data-testid="nav-unread"][data-count="3"]').waitFor({ timeout: 15_000 });
    expect(await badge.textContent()).toBe('3');
    expect(await apiUnread(user)).toBe(3);
    // One toast for the move, naming the furthest mover, with the three firings under it.
    const toast = page.locator('[data-testid="toast"][data-count="3"]');
    await toast.waitFor();
    expect(await toast.locator('[data-testid="toast-title"]').textContent()).toBe('LKOH +5,2 %: 3 уведомления');
    const inbox = (await stack.api('GET', '/api/notification-events', { user, headers: { 'accept-language': 'ru' } })).body.data as { body: string }[];
    expect((await toast.locator('[data-testid="toast-item"]').allTextContents()).sort()).toEqual(inbox.map((f) => f.body).sort());
    expect(await page.locator('[data-testid="toast"]').count()).toBe(1);
    expect(await page.evaluate('window.__sameDocument')).toBe(true);
    await screenshot(page, 'unread-badge-toast');

    // A later firing counts one more.
    await riseAlert(user, 'SBER', 1.05);
    await stack.publishRates([{ ticker: 'SBER', rate: Math.round(targets.SBER * 110) / 100, change: 9, asOf: new Date() }]);
    await page.locator('[data-testid="nav-unread"][data-count="4"]').waitFor({ timeout: 15_000 });

    // Mark-read on the inbox screen: the badge goes.
    await page.locator('[data-testid="nav-notifications"]').click();
    await page.locator('[data-testid="inbox-unread"]').filter({ hasText: '4' }).waitFor();
    await page.locator('[data-testid="inbox-mark-all-read"]').click();
    await badge.waitFor({ state: 'detached' });
    expect(await apiUnread(user)).toBe(0);
    // And stays gone after a reload (the count is the server's).
    await page.reload();
    await page.locator('html[data-notification-stream="connected"]').waitFor();
    await page.locator('[data-testid="inbox-unread"]').filter({ hasText: '0' }).waitFor();
    expect(await badge.count()).toBe(0);
  });

  it('at phone width: the badge in the navigation and the grouped toast fit the screen', async () => {
    const page = await freshPage({ ...PHONE, locale: 'en-US' });
    const user = newUser();
    await signIn(page, user);
    await page.locator('html[data-notification-stream="connected"]').waitFor();
    const a = await riseAlert(user, 'GAZP', 1.04);
    const b = await riseAlert(user, 'GAZP', 1.05);
    await stack.publishRates([{ ticker: 'GAZP', rate: Math.round(Math.max(a, b) * 101) / 100, change: 6.1, asOf: new Date() }]);
    await page.locator('[data-testid="nav-unread"][data-count="2"]').waitFor({ timeout: 15_000 });
    const toast = page.locator('[data-testid="toast"][data-count="2"]');
    await toast.waitFor();
    expect(await toast.locator('[data-testid="toast-title"]').textContent()).toBe('GAZP +6.1%: 2 notifications');
    await expectNoSidewaysScroll(page);
    await screenshot(page, 'unread-badge-toast-phone');
  });
});
