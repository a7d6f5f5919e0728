/**
 * The holdings of a portfolio in a real browser (system Chromium through playwright-core) against the whole product
 * in-process (support/web-stack.ts), in the pattern of browser.e2e.test.ts: the Russian screens show exactly the
 * figures the API answers (list, header, table), the header's value - invested = gain, the table sorts, closed
 * positions are folded away, every figure has its tooltip, at desktop and at phone width (390 px). Screenshots in
 * .runtime/screenshots/.
 */
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { paths } from '../../../web/src/api/openapi.js';
import { formatMoney, formatNumber, formatPercent, type Locale } from '../../../web/src/format/number-format.js';
import { screenshot } from '../support/browser.js';
import { type FreshPage, useBrowserStack } from '../support/browser-stack.js';
import type { WebStack } from '../support/web-stack.js';

let stack: WebStack;
let freshPage: FreshPage;
useBrowserStack('web_holdings', { tickers: ['SBER', 'GAZP', 'LKOH'] }, (s) => ({ stack, freshPage } = s));

const USER = `webhold-${randomUUID().slice(0, 8)}`;
const NAME = 'Портфель с позициями';
let portfolioId: number;

/** The holdings as HTTP answers them (money as JSON numbers), typed by the web client's API types. */
type Holdings = paths['/api/portfolios/{id}/holdings']['get']['responses'][200]['content']['application/json']['data'];
type HoldingRow = Holdings['rows'][number];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies are read loosely; the assertions check their shape
async function api(method: string, path: string, body?: unknown): Promise<any> {
  const r = await stack.api(method, path, { user: USER, body });
  expect(r.status, `${method} ${path}: ${r.text}`).toBeLessThan(300);
  return r.body;
}
const holdings = async (): Promise<Holdings> => (await api('GET', `/api/portfolios/${portfolioId}/holdings`)).data;

/** What the page writes for a figure: the web client's own formatting of the API's number. */
const money = (v: number | null, currency: string, locale: Locale) => formatMoney(v, currency, locale);
const signed = (v: number | null, currency: string, locale: Locale) => (v !== null && v > 0 ? '+' : '') + money(v, currency, locale);
const text = async (page: Page, selector: string) => (await page.locator(selector).first().innerText()).replace(/\s+/g, ' ').trim();

beforeAll(async () => {
  // Known prices with a 24 h change, newer than the demo data's.
  await stack.publishRates([
    { ticker: 'SBER', rate: 300, change: 1.5 },
    { ticker: 'GAZP', rate: 150, change: -2 },
    { ticker: 'LKOH', rate: 7000, change: 0.5 },
  ]);
  portfolioId = (await api('POST', '/api/portfolios', { name: NAME, currency_code: 'RUB' })).data.id;
  const deal = (ticker: string, type: string, quantity: number, price: number, date: string, commission = 0) =>
    api('POST', `/api/portfolios/${portfolioId}/deals`, { type, assetable: stack.share(ticker), quantity, price, commission, date });
  // SBER: two buys, a partial sale, a dividend. GAZP: held at a loss. LKOH: bought and sold (closed), with a dividend.
  await deal('SBER', 'buy', 10, 250, '2024-01-10', 5);
  await deal('SBER', 'buy', 10, 270, '2024-02-10', 5);
  await deal('SBER', 'sell', 5, 300, '2024-03-15', 3);
  await deal('SBER', 'dividend', 15, 33.3, '2024-07-20');
  await deal('GAZP', 'buy', 100, 160, '2024-04-01', 10);
  await deal('LKOH', 'buy', 2, 6500, '2024-01-05');
  await deal('LKOH', 'dividend', 2, 450, '2024-06-01');
  await deal('LKOH', 'sell', 2, 7100, '2024-08-01');
  // The rates reach the portfolios service's price table asynchronously.
  const prices = async () => (await holdings()).rows.map((r) => `${r.ticker} ${r.current_price}`).join(', ');
  const deadline = Date.now() + 15_000;
  while ((await prices()) !== 'GAZP 150, SBER 300, LKOH 7000') {
    if (Date.now() > deadline) throw new Error(`the prices never reached the portfolios service: ${await prices()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
});

async function signIn(page: Page): Promise<void> {
  await page.goto(stack.base + '/sign-in');
  await page.locator('[data-testid="sign-in-user-id"]').fill(USER);
  await page.locator('[data-testid="sign-in-submit"]').click();
  await page.locator('[data-testid="signed-in-user"]').filter({ hasText: USER }).waitFor();
}

async function openPortfolio(page: Page): Promise<void> {
  await page.goto(`${stack.base}/portfolios/${portfolioId}`);
  await page.locator('[data-testid="holdings-table"]').waitFor();
  await page.locator('[data-testid="metric-networth"]').waitFor();
}

/** The rows' tickers as shown. */
const shownTickers = (page: Page) => page.locator('[data-testid="holding-row"]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-ticker')));

/** Every open row's figures and the header's, as the page shows them, against the API's answer. */
async function expectFiguresOf(page: Page, h: Holdings, locale: Locale): Promise<void> {
  const t = h.totals;
  const c = t.currency;
  expect(await text(page, '[data-testid="metric-networth"] [data-testid="metric-value"]')).toBe(money(t.value, c, locale));
  expect(await text(page, '[data-testid="metric-invested"] [data-testid="metric-value"]')).toBe(money(t.invested, c, locale));
  expect(await text(page, '[data-testid="metric-gain"] [data-testid="metric-value"]')).toBe(`${signed(t.gain, c, locale)} (${formatPercent(t.gain_percentage, locale)})`);
  expect(await text(page, '[data-testid="metric-dividends"] [data-testid="metric-value"]')).toBe(money(t.dividends, c, locale));
  expect(await text(page, '[data-testid="metric-realised"] [data-testid="metric-value"]')).toBe(signed(t.realised, c, locale));
  expect(await text(page, '[data-testid="metric-result"] [data-testid="metric-value"]')).toBe(signed(t.result, c, locale));
  for (const r of h.rows.filter((x) => x.open)) {
    const row = `[data-testid="holding-row"][data-ticker="${r.ticker}"]`;
    const rc = r.currency ?? c;
    expect(await text(page, `${row} [data-testid="cell-quantity"]`)).toBe(formatNumber(r.quantity, locale, 8));
    expect(await text(page, `${row} [data-testid="cell-average_price"]`)).toBe(money(r.average_price, rc, locale));
    expect(await text(page, `${row} [data-testid="cell-current_price"]`)).toBe(money(r.current_price, rc, locale));
    expect(await text(page, `${row} [data-testid="cell-value"]`)).toBe(money(r.value, rc, locale));
    expect(await text(page, `${row} [data-testid="cell-gain"]`)).toBe(`${signed(r.gain, rc, locale)} ${formatPercent(r.gain_percentage, locale)}`);
    expect(await text(page, `${row} [data-testid="cell-day_change"]`)).toBe(`${signed(r.day_change, rc, locale)} ${formatPercent(r.day_change_percentage, locale)}`);
    expect(await text(page, `${row} [data-testid="cell-weight"]`)).toBe(formatPercent(r.weight, locale, false));
    expect(await text(page, `${row} [data-testid="cell-dividends"]`)).toBe(money(r.dividends, rc, locale));
  }
  expect(await text(page, '[data-testid="total-value"]')).toBe(money(t.value, c, locale));
}

describe('holdings in Russian', () => {
  it('the portfolio list shows each portfolio value and gain as the API answers them', async () => {
    const page = await freshPage({ locale: 'ru-RU' });
    await signIn(page);
    await page.locator('[data-testid="nav-portfolios"]').click();
    const item = page.locator(`[data-testid="portfolio-item"][data-portfolio-id="${portfolioId}"]`);
    await item.waitFor();
    const listed = ((await api('GET', '/api/portfolios')).data as { id: number; value: number; gain: number; gain_percentage: number | null }[]).find((p) => p.id === portfolioId)!;
    const t = (await holdings()).totals;
    expect([listed.value, listed.gain, listed.gain_percentage]).toEqual([t.value, t.gain, t.gain_percentage]);
    expect(await text(page, `[data-portfolio-id="${portfolioId}"] [data-testid="portfolio-value"]`)).toBe(`Стоимость ${money(t.value, 'RUB', 'ru')}`);
    expect(await text(page, `[data-portfolio-id="${portfolioId}"] [data-testid="portfolio-gain"]`)).toBe(
      `Прибыль ${signed(t.gain, 'RUB', 'ru')} (${formatPercent(t.gain_percentage, 'ru')})`,
    );
    await screenshot(page, 'holdings-list-ru');
  });

  it('at desktop width: header and table figures equal the API, value - invested = gain, the table sorts, closed folded', async () => {
    const page = await freshPage({ locale: 'ru-RU' });
    await signIn(page);
    await openPortfolio(page);
    const h = await holdings();
    // The header's three figures add up, and they are the statistics' own.
    expect(h.totals.value - h.totals.invested).toBeCloseTo(h.totals.gain, 6);
    const stats = (await api('GET', `/api/portfolios/${portfolioId}/statistics`)).data.totals;
    expect([h.totals.value, h.totals.invested, h.totals.gain, h.totals.result]).toEqual([stats.totalCurrentNetworth, stats.totalSpent, stats.totalCurrentIncome, stats.totalIncome]);
    await expectFiguresOf(page, h, 'ru');
    expect(await text(page, '[data-testid="holdings"] h2')).toBe('Позиции');
    await screenshot(page, 'holdings-ru');

    // Largest value first, then by any column both ways.
    const open = h.rows.filter((r) => r.open);
    const by = (key: keyof HoldingRow, dir: 1 | -1) => [...open].sort((a, b) => dir * (Number(a[key]) - Number(b[key]))).map((r) => r.ticker);
    expect(await shownTickers(page)).toEqual(by('value', -1));
    await page.locator('[data-testid="holdings-sort-gain"]').click();
    await expect.poll(() => shownTickers(page)).toEqual(by('gain', -1));
    await page.locator('[data-testid="holdings-sort-gain"]').click();
    await expect.poll(() => shownTickers(page)).toEqual(by('gain', 1));
    await page.locator('[data-testid="holdings-sort-weight"]').click();
    await expect.poll(() => shownTickers(page)).toEqual(by('weight', -1));
    expect(open.map((r) => r.ticker).sort()).toEqual(['GAZP', 'SBER']);

    // The closed position is folded away until asked for.
    const closed = page.locator('[data-testid="closed-row"][data-ticker="LKOH"]');
    expect(await closed.isVisible()).toBe(false);
    expect(await text(page, '[data-testid="closed-positions"] summary')).toBe('Закрытые позиции: 1');
    await page.locator('[data-testid="closed-positions"] summary').click();
    await closed.waitFor({ state: 'visible' });
    const lkoh = h.rows.find((r) => r.ticker === 'LKOH')!;
    expect(await text(page, '[data-testid="closed-row"][data-ticker="LKOH"] [data-testid="cell-realised"]')).toBe(signed(lkoh.realised, 'RUB', 'ru'));

    // Each figure explains itself.
    await page.locator('[data-testid="hint-invested"]').hover();
    const tip = page.locator('[role="tooltip"]:visible');
    await tip.waitFor();
    expect(await tip.textContent()).toContain('Сколько стоили открытые позиции');
    await screenshot(page, 'holdings-tooltip-ru');
    for (const id of ['networth', 'gain', 'change24h', 'dividends', 'realised', 'result', 'xirr']) expect(await page.locator(`[data-testid="hint-${id}"]`).count(), id).toBe(1);
    for (const col of ['quantity', 'average_price', 'current_price', 'value', 'gain', 'day_change', 'weight', 'dividends']) {
      expect(await page.locator(`[data-testid="hint-col-${col}"]`).count(), col).toBe(1);
    }
  });

  it('at phone width (390 px): the same figures, the page does not scroll sideways, a tap shows the tooltip on screen', async () => {
    const page = await freshPage({ locale: 'ru-RU', width: 390, height: 844 });
    await signIn(page);
    await openPortfolio(page);
    await expectFiguresOf(page, await holdings(), 'ru');
    const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    await page.locator('[data-testid="holdings"]').scrollIntoViewIfNeeded();
    await screenshot(page, 'holdings-phone-ru');
    await page.locator('[data-testid="hint-gain"]').click();
    const tip = page.locator('[role="tooltip"]:visible');
    await tip.waitFor();
    const box = (await tip.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    await screenshot(page, 'holdings-phone-tooltip-ru');
  });
});

describe('holdings in English', () => {
  it('names and explains the figures in English', async () => {
    const page = await freshPage({ locale: 'en-US' });
    await signIn(page);
    await openPortfolio(page);
    await expectFiguresOf(page, await holdings(), 'en');
    expect(await text(page, '[data-testid="metric-invested"] .metric-label')).toContain('Invested');
    await page.locator('[data-testid="hint-invested"]').hover();
    expect(await page.locator('[role="tooltip"]:visible').textContent()).toContain('What the open positions cost');
    await screenshot(page, 'holdings-en');
  });
});
