/**
 * The asset page in a real browser against the whole product in-process (support/web-stack.ts): SBER's page is
 * opened from the screener, its figures match what the API answers, the chart switches range, and a signed-in
 * user sees their position and alerts on it. At desktop width and at 390 px, in Russian; screenshots in
 * .runtime/screenshots/.
 */
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { screenshot } from '../support/browser.js';
import { type FreshPage, useBrowserStack } from '../support/browser-stack.js';
import type { WebStack } from '../support/web-stack.js';

let stack: WebStack;
let freshPage: FreshPage;
useBrowserStack('web_asset_page', { tickers: ['SBER', 'GAZP'] }, (s) => ({ stack, freshPage } = s));

const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies are read loosely; the assertions check their shape
async function api(method: string, path: string, user?: string, body?: unknown): Promise<any> {
  const headers: Record<string, string> = { 'accept-language': 'ru', ...(body ? { 'content-type': 'application/json' } : {}) };
  if (user) headers.authorization = `Bearer ${await stack.token(user)}`;
  const res = await fetch(new URL(path, stack.base), { method, headers, body: body ? JSON.stringify(body) : undefined });
  const text = await res.text();
  expect(res.status, `${method} ${path}: ${text}`).toBeLessThan(300);
  return text ? JSON.parse(text) : undefined;
}

/** SBER closes on weekdays over the last ~10 months (the demo's last 14 days are kept). */
async function seedCloses(): Promise<void> {
  const dates: string[] = [];
  const closes: number[] = [];
  for (let i = 300; i >= 15; i--) {
    const d = new Date(Date.now() - i * 86_400_000);
    if (d.getUTCDay() === 0 || d.getUTCDay() === 6) continue;
    dates.push(day(i));
    closes.push(+(260 + 30 * Math.sin(i / 30)).toFixed(2));
  }
  await stack.screener.db.query(
    `insert into asset_daily_closes (asset_id, trade_date, close) select $1, d::date, c from unnest($2::text[], $3::numeric[]) as u(d, c) on conflict do nothing`,
    [stack.shareIds.SBER, dates, closes],
  );
}

async function signIn(page: Page, userId: string): Promise<void> {
  await page.goto(stack.base + '/sign-in');
  await page.locator('[data-testid="sign-in-user-id"]').fill(userId);
  await page.locator('[data-testid="sign-in-submit"]').click();
  await page.locator('[data-testid="signed-in-user"]').filter({ hasText: userId }).waitFor();
}

const figure = (page: Page, key: string) => page.locator(`[data-testid="figure-${key}"] [data-testid="figure-value"]`).innerText();

/** The chart shows `range` once its button is on and the panel holds that range's closes. */
async function switchRange(page: Page, range: string): Promise<number> {
  await page.locator(`[data-testid="asset-range-${range}"]`).click();
  await expect.poll(() => page.locator('[data-testid="asset-chart-panel"]').getAttribute('data-range')).toBe(range);
  await page.locator('[data-testid="asset-chart"]').waitFor();
  return Number(await page.locator('[data-testid="asset-chart-panel"]').getAttribute('data-points'));
}

async function fitsWidth(page: Page, width: number): Promise<void> {
  expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(width);
}

describe('asset page', () => {
  it("opens SBER's page from the screener; figures as the API says, in Russian; the chart switches range (desktop)", async () => {
    await seedCloses();
    const page = await freshPage({ width: 1280, height: 900, locale: 'ru-RU' });
    await page.goto(stack.base + '/');
    await page.locator('[data-testid="screener-row"][data-ticker="SBER"] [data-testid="cell-asset"] a').click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/assets/share/SBER');
    await page.locator('[data-testid="asset-figures"]').waitFor();
    const asset = (await api('GET', '/api/public/assets/share/SBER')).data;
    expect(await page.locator('[data-testid="asset-title"]').innerText()).toBe(`SBER ${asset.name}`);
    expect(await figure(page, 'isin')).toBe(asset.isin);
    expect(asset.share.category.slug).toBe('ordinary');
    expect(await figure(page, 'category')).toBe('Обыкновенные акции');
    // Russian number formats: a decimal comma, a non-breaking space between thousands, "%" after a space.
    const ruNumber = (v: number, digits: number) => new Intl.NumberFormat('ru', { maximumFractionDigits: digits }).format(v);
    expect((await figure(page, 'price')).replace(/\s/g, ' ')).toContain(ruNumber(asset.current_rate, 2).replace(/\s/g, ' '));
    if (asset.share.dividend_yield !== null) expect(await figure(page, 'dividend_yield')).toContain(ruNumber(asset.share.dividend_yield, 2));
    expect(await page.locator('[data-testid="figure-market_cap"]').innerText()).toMatch(/Капитализация/);
    expect(await page.locator('[data-testid="dividend-row"]').count()).toBe(asset.dividends.length);
    expect(await page.locator('[data-testid="asset-notify"]').innerText()).toBe('Уведомить');

    const points: Record<string, number> = {};
    for (const range of ['1M', '1Y', '6M']) {
      points[range] = await switchRange(page, range);
      const closes = (await api('GET', `/api/public/assets/share/SBER/closes?range=${range}`)).data;
      expect(points[range]).toBe(closes.dates.length);
      if (range === '1Y') await screenshot(page, 'asset-page-desktop-1y');
    }
    expect(points['1Y']).toBeGreaterThan(points['6M']!);
    expect(points['6M']).toBeGreaterThan(points['1M']!);
    await screenshot(page, 'asset-page-desktop');
  });

  it("shows a signed-in user's position over their portfolios and their alerts; the notify button opens the alert dialog (390 px)", async () => {
    await seedCloses();
    const user = `asset-${randomUUID().slice(0, 8)}`;
    const buy = async (name: string, quantity: number) => {
      const pid = (await api('POST', '/api/portfolios', user, { name, currency_code: 'RUB' })).data.id;
      await api('POST', `/api/portfolios/${pid}/deals`, user, { type: 'buy', assetable: { type: 'share', id: stack.shareIds.SBER }, quantity, price: 250, date: day(30) });
    };
    await buy('Основной', 10);
    await buy('ИИС', 5);
    await api('POST', '/api/price-alert', user, { target_price: 1000, assetable: { type: 'share', id: stack.shareIds.SBER }, name: 'SBER 1000' });

    const page = await freshPage({ width: 390, height: 844, locale: 'ru-RU' });
    await signIn(page, user);
    await page.goto(stack.base + '/assets/share/SBER');
    // Opened by its address (a reload, a shared link): the gateway serves the app there, not a missing file.
    await page.locator('[data-testid="asset-figures"]').waitFor();
    await page.locator('[data-testid="asset-position-total"]').waitFor();
    expect(await page.locator('[data-testid="asset-position-total"]').innerText()).toMatch(/^15 шт\./);
    await expect.poll(() => page.locator('[data-testid="asset-alert"]').allInnerTexts()).toEqual([expect.stringMatching(/цена ≥ 1\s?000/)]);
    await page.locator('[data-testid="asset-chart"]').waitFor();
    await fitsWidth(page, 390);
    // A missing built file under /assets/ is still a 404, never the app's page.
    expect((await fetch(new URL('/assets/no-such-chunk-123.js', stack.base))).status).toBe(404);
    await screenshot(page, 'asset-page-390-ru');

    await page.locator('[data-testid="asset-notify"]').click();
    await page.getByRole('dialog').waitFor();
    await screenshot(page, 'asset-page-390-ru-dialog');
  });
});
