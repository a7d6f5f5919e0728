/**
 * The portfolio's value-over-time chart in a real browser (system Chromium through playwright-core) against the
 * whole product in-process (support/web-stack.ts), set up as browser.e2e.test.ts is. A portfolio with deals over
 * the last months and SBER/GAZP closes stored in the screener: the chart draws, the range buttons ask the API for
 * their range, and the page reads at desktop width in English and at 390 px in Russian. Screenshots in
 * .runtime/screenshots/.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { SCREENSHOT_DIR, screenshot } from '../support/browser.js';
import { type FreshPage, useBrowserStack } from '../support/browser-stack.js';
import type { WebStack } from '../support/web-stack.js';

let stack: WebStack;
let freshPage: FreshPage;
useBrowserStack('web_history', { tickers: ['SBER', 'GAZP'] }, (s) => ({ stack, freshPage } = s));

const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies are read loosely; the assertions check their shape
async function api(user: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(new URL(path, stack.base), {
    method,
    headers: { authorization: `Bearer ${await stack.token(user)}`, 'accept-language': 'en', ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  expect(res.status, `${method} ${path}: ${text}`).toBeLessThan(300);
  return text ? JSON.parse(text) : undefined;
}

/** A user with a portfolio bought over the last ~8 months, and a daily walk of SBER and GAZP closes on weekdays. */
async function seed(): Promise<{ user: string; pid: number }> {
  const user = `web-${randomUUID().slice(0, 8)}`;
  const ids = stack.shareIds;
  const dates: string[] = [];
  const sber: number[] = [];
  const gazp: number[] = [];
  for (let i = 260; i >= 15; i--) {
    const d = new Date(Date.now() - i * 86_400_000);
    if (d.getUTCDay() === 0 || d.getUTCDay() === 6) continue;
    dates.push(day(i));
    sber.push(+(250 + 40 * Math.sin(i / 25) + (260 - i) / 8).toFixed(2));
    gazp.push(+(160 - 30 * Math.cos(i / 40)).toFixed(2));
  }
  // Closes already there (the demo's last 14 days) are kept.
  await stack.screener.db.query(
    `insert into asset_daily_closes (asset_id, trade_date, close)
     select a, d::date, c from unnest($1::bigint[], $2::text[], $3::numeric[]) as u(a, d, c) on conflict do nothing`,
    [[...dates.map(() => ids.SBER), ...dates.map(() => ids.GAZP)], [...dates, ...dates], [...sber, ...gazp]],
  );
  const pid = (await api(user, 'POST', '/api/portfolios', { name: 'History chart', currency_code: 'RUB' })).data.id as number;
  const deal = (type: string, ticker: 'SBER' | 'GAZP', quantity: number, price: number, daysAgo: number) =>
    api(user, 'POST', `/api/portfolios/${pid}/deals`, { type, assetable: { type: 'share', id: ids[ticker] }, quantity, price, date: day(daysAgo) });
  await deal('buy', 'SBER', 20, 240, 240);
  await deal('buy', 'GAZP', 100, 150, 180);
  await deal('buy', 'SBER', 10, 270, 120);
  await deal('sell', 'GAZP', 40, 170, 60);
  return { user, pid };
}

async function signIn(page: Page, userId: string): Promise<void> {
  await page.goto(stack.base + '/sign-in');
  await page.locator('[data-testid="sign-in-user-id"]').fill(userId);
  await page.locator('[data-testid="sign-in-submit"]').click();
  await page.locator('[data-testid="signed-in-user"]').filter({ hasText: userId }).waitFor();
}

/** Waits for the chart and returns the range the page asked the API for last. */
async function chartShows(page: Page, asked: string[]): Promise<void> {
  await page.locator('[data-testid="history-chart"]').waitFor();
  await expect.poll(() => asked.at(-1)).toBeDefined();
}

describe('portfolio value over time', () => {
  it('draws value and invested, switches ranges (desktop, English)', async () => {
    const { user, pid } = await seed();
    const page = await freshPage({ width: 1280, height: 900 });
    const asked: string[] = [];
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.pathname === `/api/portfolios/${pid}/history`) asked.push(u.searchParams.get('range') ?? '');
    });
    await signIn(page, user);
    await page.goto(`${stack.base}/portfolios/${pid}`);
    await chartShows(page, asked);
    expect(asked.at(-1)).toBe('1Y');
    await expect.poll(() => page.locator('[data-testid="history-range-1Y"]').getAttribute('aria-checked')).toBe('true');
    // The chart's text alternative ends on today's value, the holdings' value.
    const totals = (await api(user, 'GET', `/api/portfolios/${pid}/holdings`)).data.totals;
    const history = (await api(user, 'GET', `/api/portfolios/${pid}/history?range=1Y`)).data.points as { date: string; value: number; invested: number }[];
    expect(history.at(-1)!.value).toBe(totals.value);
    await expect.poll(() => page.locator('[data-testid="history-chart"]').getAttribute('aria-label')).toMatch(/^Value .+, invested .+/);
    await screenshot(page, 'portfolio-history-desktop-1y');
    for (const range of ['1M', '6M', 'ALL']) {
      await page.locator(`[data-testid="history-range-${range}"]`).click();
      await expect.poll(() => asked.at(-1)).toBe(range);
      await expect.poll(() => page.locator(`[data-testid="history-range-${range}"]`).getAttribute('aria-checked')).toBe('true');
      await page.locator('[data-testid="history-chart"]').waitFor();
    }
    await screenshot(page, 'portfolio-history-desktop-all');
    await page.locator('[data-testid="portfolio-history"]').screenshot({ path: join(SCREENSHOT_DIR, 'portfolio-history-desktop-all-panel.png') });
  });

  it('reads at 390 px in Russian', async () => {
    const { user, pid } = await seed();
    const page = await freshPage({ width: 390, height: 844, locale: 'ru-RU' });
    await signIn(page, user);
    await page.goto(`${stack.base}/portfolios/${pid}`);
    await page.locator('[data-testid="history-chart"]').waitFor();
    await expect.poll(() => page.locator('[data-testid="history-range-ALL"]').textContent()).toBe('Всё');
    await expect.poll(() => page.locator('[data-testid="portfolio-history"] h2').textContent()).toBe('Стоимость во времени');
    await page.locator('[data-testid="history-range-6M"]').click();
    await expect.poll(() => page.locator('[data-testid="history-range-6M"]').getAttribute('aria-checked')).toBe('true');
    // Nothing of the panel sticks out of a phone's width.
    const box = await page.locator('[data-testid="portfolio-history"]').boundingBox();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    const canvas = await page.locator('[data-testid="history-chart"]').boundingBox();
    expect(canvas!.width).toBeGreaterThan(250);
    await screenshot(page, 'portfolio-history-390-ru');
    // The panel alone at its real size: the full page is scaled down when looked at.
    await page.locator('[data-testid="portfolio-history"]').screenshot({ path: join(SCREENSHOT_DIR, 'portfolio-history-390-ru-panel.png') });
  });
});
