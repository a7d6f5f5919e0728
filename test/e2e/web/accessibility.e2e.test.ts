/**
 * Every screen of the web client, with data in it, in a real browser (system Chromium through playwright-core)
 * against the whole product in-process (support/web-stack.ts): axe finds no serious or critical violation at desktop
 * (1440 px) and phone (390 px) width, in the light and the dark colour scheme, and each look leaves a screenshot in
 * .runtime/screenshots/a11y-<screen>-<look>.png. Also the theme switch and the phone's one-line top bar.
 * One page walks the screens in turn (a screen is checked as a person would reach it: signed in, data loaded).
 */
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkEveryLook, screenshot } from '../support/browser.js';
import { type FreshPage, useBrowserStack } from '../support/browser-stack.js';
import type { WebStack } from '../support/web-stack.js';

let stack: WebStack;
let freshPage: FreshPage;
useBrowserStack('web_a11y', { tickers: ['SBER', 'GAZP'], delivery: {} }, (s) => ({ stack, freshPage } = s));

const USER = `a11y-${randomUUID().slice(0, 8)}`;
const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
let portfolioId: number;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies are read loosely; the assertions check their shape
async function api(method: string, path: string, body?: unknown, user = USER): Promise<any> {
  const r = await stack.api(method, path, { user, body });
  expect(r.status, `${method} ${path}: ${r.text}`).toBeLessThan(300);
  return r.body;
}

/** Fires an alert of `user` (a target 2 % over SBER's rate, then a rate past it): one unread firing in the inbox. */
async function fireAlert(user: string): Promise<void> {
  const sber = (await api('GET', '/api/public/shares?search=SBER')).data.find((r: { asset: string }) => r.asset === 'SBER') as { current_rate: number };
  const [latest] = await stack.alerts.db.query<{ rate: string | null }>("select rate from latest_rates where asset_type = 'share' and asset_id = $1", [stack.share('SBER').id]);
  const target = Math.round(Math.max(sber.current_rate, Number(latest?.rate ?? 0)) * 102) / 100;
  await api('POST', '/api/price-alert', { target_price: target, assetable: stack.share('SBER'), direction: 'above' }, user);
  await stack.publishRates([{ ticker: 'SBER', rate: Math.round(target * 101) / 100, change: 3, asOf: new Date() }]);
}

/** A user with something on every screen: a portfolio with holdings, a sale and a dividend, a watchlist, an alert. */
beforeAll(async () => {
  portfolioId = (await api('POST', '/api/portfolios', { name: 'Основной', currency_code: 'RUB' })).data.id;
  const deal = (type: string, ticker: string, quantity: number, price: number, daysAgo: number) =>
    api('POST', `/api/portfolios/${portfolioId}/deals`, { type, assetable: stack.share(ticker), quantity, price, date: day(daysAgo) });
  await deal('buy', 'SBER', 20, 240, 200);
  await deal('buy', 'GAZP', 100, 150, 150);
  await deal('dividend', 'SBER', 20, 33.3, 90);
  await deal('sell', 'GAZP', 40, 170, 30);
  const watchlist = (await api('POST', '/api/watchlists', { name: 'Голубые фишки' })).data.id;
  for (const ticker of ['SBER', 'GAZP']) await api('POST', `/api/watchlists/${watchlist}/items`, { assetable: stack.share(ticker) });
  await api('POST', '/api/price-alert', { target_price: 100000, assetable: stack.share('SBER'), direction: 'above', name: 'SBER 100 000' });
});

async function signIn(page: Page, user = USER): Promise<void> {
  await page.goto(stack.base + '/sign-in');
  await page.locator('[data-testid="sign-in-user-id"]').fill(user);
  await page.locator('[data-testid="sign-in-submit"]').click();
  await page.locator('[data-testid="signed-in-user"]').filter({ hasText: user }).waitFor();
}

/** Screens are checked in Russian (the longer texts) unless a test says otherwise. */
const ru = () => freshPage({ locale: 'ru-RU', width: 1440, height: 900 });

// Each look is an axe run and a full-page screenshot: a few seconds each on two busy cores.
describe('no serious axe violation, at 1440 and 390 px, light and dark; screenshots of each', { timeout: 150_000 }, () => {
  it('signed out: sign-in', async () => {
    const page = await ru();
    await page.goto(stack.base + '/sign-in');
    await page.locator('[data-testid="sign-in-form"]').waitFor();
    await checkEveryLook(page, 'a11y-sign-in');
  });

  it('signed in: screener and its alert dialog, asset page', async () => {
    const page = await ru();
    await signIn(page);
    // Ten rows: every kind of cell, and a quicker check than 25.
    await page.goto(stack.base + '/?per_page=10');
    await page.locator('[data-testid="screener-table"][data-loading="false"] [data-testid="row-create-alert"]').first().waitFor();
    await checkEveryLook(page, 'a11y-screener');
    await page.locator('[data-testid="screener-row"][data-ticker="SBER"] [data-testid="row-create-alert"]').click();
    await page.locator('[data-testid="alert-dialog"]').waitFor();
    await checkEveryLook(page, 'a11y-alert-dialog', { scope: '[data-testid="alert-dialog"]' });
    await page.keyboard.press('Escape');
    await page.locator('[data-testid="alert-dialog"]').waitFor({ state: 'detached' });

    await page.goto(stack.base + '/assets/share/SBER');
    await page.locator('[data-testid="asset-chart"]').waitFor();
    await page.locator('[data-testid="asset-position-total"]').waitFor();
    await checkEveryLook(page, 'a11y-asset');
  });

  it('portfolios: the list, one portfolio with holdings, history, dividends and the import panel', async () => {
    const page = await ru();
    await signIn(page);
    await page.goto(stack.base + '/portfolios');
    await page.locator('[data-testid="portfolio-item"]').first().waitFor();
    await checkEveryLook(page, 'a11y-portfolios');
    await page.goto(`${stack.base}/portfolios/${portfolioId}`);
    for (const id of ['portfolio-statistics', 'history-chart', 'dividends', 'deal-import', 'deal-list']) await page.locator(`[data-testid="${id}"]`).first().waitFor();
    await checkEveryLook(page, 'a11y-portfolio');
    // The import panel with a preview: a good row and one with an error.
    const csv = ['Дата;Операция;Тикер;Количество;Цена;Комиссия', '10.01.2024;Покупка;SBER;10;250,5;0,5', '01.03.2024;Покупка;NOSUCH;1;1;0'].join('\n');
    await page.locator('[data-testid="deal-import-file"]').setInputFiles({ name: 'deals.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.locator('[data-testid="deal-import-preview"]').waitFor();
    await checkEveryLook(page, 'a11y-portfolio-import', { scope: '[data-testid="deal-import"]' });
  });

  it('watchlists, notifications (alerts and inbox), notification settings', async () => {
    const page = await ru();
    await signIn(page);
    await page.goto(stack.base + '/watchlists');
    await page.locator('[data-testid="watchlist-row"]').nth(1).waitFor();
    await checkEveryLook(page, 'a11y-watchlists');

    // A firing in the inbox: an alert the next rate reaches.
    await page.locator('html[data-notification-stream="connected"]').waitFor();
    await fireAlert(USER);
    await page.locator('[data-testid="nav-unread"]').waitFor({ timeout: 15_000 });
    await page.goto(stack.base + '/notifications');
    await page.locator('[data-testid="inbox-item"]').first().waitFor();
    await page.locator('[data-testid="alert-item"]').nth(1).waitFor();
    await checkEveryLook(page, 'a11y-notifications');

    await page.goto(stack.base + '/settings/notifications');
    await page.locator('[data-testid="notification-settings"][data-loaded="true"]').waitFor();
    await checkEveryLook(page, 'a11y-settings');
  });

  it('subscription and chat', async () => {
    const page = await ru();
    await signIn(page);
    await page.goto(stack.base + '/subscription');
    await page.locator('[data-testid="subscription-status"][data-status="none"]').waitFor();
    await page.locator('[data-testid="plan"]').first().waitFor();
    await checkEveryLook(page, 'a11y-subscription');

    await page.goto(stack.base + '/chat');
    await page.locator('[data-testid="chat-new-support"]').click();
    await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/);
    stack.model.queue.push({ chunks: ['Распределите', ' вложения', ' по отраслям.'], delayMs: 0 });
    await page.locator('[data-testid="chat-input"]').fill('С чего начать?');
    await page.locator('[data-testid="chat-send"]').click();
    await page.locator('[data-testid="chat-answer"][data-status="complete"]').waitFor();
    await checkEveryLook(page, 'a11y-chat');
  });
});

describe('theme switch and the top bar', () => {
  const background = (page: Page) => page.evaluate('getComputedStyle(document.documentElement).backgroundColor');

  it('switches system → light → dark → system, remembered over a reload, whatever the device says', async () => {
    const page = await freshPage({ locale: 'en-US' });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(stack.base + '/');
    const toggle = page.locator('[data-testid="theme-toggle"]');
    expect(await toggle.getAttribute('data-theme-choice')).toBe('system');
    expect(await toggle.getAttribute('aria-label')).toBe('Theme: system');
    const light = await background(page);
    await toggle.click();
    expect(await page.evaluate('document.documentElement.dataset.theme')).toBe('light');
    await toggle.click();
    expect(await toggle.getAttribute('aria-label')).toBe('Theme: dark');
    const dark = await background(page);
    expect(dark).not.toBe(light);
    await page.reload();
    await page.locator('[data-testid="screener-row"]').first().waitFor();
    expect(await toggle.getAttribute('data-theme-choice')).toBe('dark');
    expect(await background(page)).toBe(dark);
    // Light chosen on a dark device stays light.
    await page.emulateMedia({ colorScheme: 'dark' });
    await toggle.click();
    expect(await background(page)).toBe(dark);
    await toggle.click();
    expect(await toggle.getAttribute('data-theme-choice')).toBe('light');
    expect(await background(page)).toBe(light);
    expect(await page.evaluate('localStorage.getItem("invest.theme")')).toBe('light');
  });

  it('at 390 px the bar is one line; the menu button shows the unread badge and opens the navigation', async () => {
    const page = await freshPage({ locale: 'ru-RU', width: 390, height: 844 });
    const user = `a11y-bar-${randomUUID().slice(0, 8)}`;
    await signIn(page, user);
    await page.locator('html[data-notification-stream="connected"]').waitFor();
    await fireAlert(user);
    await page.locator('[data-testid="nav-unread"]').waitFor({ timeout: 15_000 });
    // In Russian, then in English ("Sign out" is longer than "Выйти").
    for (const locale of ['ru', 'en']) {
      if (locale === 'en') await page.locator('[data-testid="locale-toggle"]').click();
      await page.locator(`html[lang="${locale}"]`).waitFor({ state: 'attached' });
      const bar = await page.locator('header.topbar').boundingBox();
      expect(bar!.height, `${locale}: one line of controls`).toBeLessThan(56);
      for (const id of ['nav-menu', 'nav-unread', 'locale-toggle', 'theme-toggle', 'signed-in-user', 'sign-out']) {
        const box = await page.locator(`[data-testid="${id}"]`).boundingBox();
        expect(box, `${locale}: ${id} is shown`).not.toBeNull();
        expect(box!.x + box!.width, `${locale}: ${id} fits the width`).toBeLessThanOrEqual(390);
        expect(box!.y + box!.height, `${locale}: ${id} is in the bar`).toBeLessThanOrEqual(bar!.y + bar!.height);
      }
      expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'), `${locale}: no sideways scroll`).toBeLessThanOrEqual(0);
    }
    expect(await page.locator('[data-testid="nav-menu"] [data-testid="nav-unread"]').count()).toBe(1);
    expect(await page.locator('[data-testid="nav-portfolios"]').isVisible()).toBe(false);
    const menu = page.locator('[data-testid="nav-menu"]');
    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    await screenshot(page, 'a11y-topbar-phone-menu');
    await page.locator('[data-testid="nav-portfolios"]').click();
    await page.waitForURL(/\/portfolios$/);
    await expect.poll(() => menu.getAttribute('aria-expanded')).toBe('false');
    expect(await page.locator('[data-testid="nav-portfolios"]').isVisible()).toBe(false);
    // Wide again: the navigation is in the bar and the badge beside "Уведомления".
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.locator('[data-testid="nav-notifications"] [data-testid="nav-unread"]').waitFor();
    expect(await menu.isVisible()).toBe(false);
  });
});
