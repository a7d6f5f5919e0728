/**
 * The dividends panel of a portfolio in a real browser (system Chromium through playwright-core) against the whole
 * product in-process (support/web-stack.ts), in the pattern of holdings.e2e.test.ts: the Russian panel shows the
 * upcoming dividends by month with the amount due, and the income per year, exactly as the API answers them, at
 * desktop and at phone width (390 px). The screener's dividends are made known here (demo data has dates of its own).
 * Screenshots in .runtime/screenshots/.
 */
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { paths } from '../../../web/src/api/openapi.js';
import { formatDay, formatMoney, type Locale } from '../../../web/src/format/number-format.js';
import { screenshot } from '../support/browser.js';
import { type FreshPage, useBrowserStack } from '../support/browser-stack.js';
import type { WebStack } from '../support/web-stack.js';

let stack: WebStack;
let freshPage: FreshPage;
useBrowserStack('web_dividends', { tickers: ['SBER', 'GAZP', 'LKOH'] }, (s) => ({ stack, freshPage } = s));

const USER = `webdiv-${randomUUID().slice(0, 8)}`;
const NEXT_YEAR = new Date().getUTCFullYear() + 1;
let portfolioId: number;

type Dividends = paths['/api/portfolios/{id}/dividends']['get']['responses'][200]['content']['application/json'];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies are read loosely; the assertions check their shape
async function api(method: string, path: string, body?: unknown): Promise<any> {
  const r = await stack.api(method, path, { user: USER, body });
  expect(r.status, `${method} ${path}: ${r.text}`).toBeLessThan(300);
  return r.body;
}
const text = async (page: Page, selector: string) => (await page.locator(selector).first().innerText()).replace(/\s+/g, ' ').trim();

beforeAll(async () => {
  const ids = [stack.share('SBER').id, stack.share('GAZP').id, stack.share('LKOH').id];
  await stack.screener.db.query('delete from dividends where asset_id = any($1::bigint[])', [ids]);
  await stack.screener.db.query(
    `insert into dividends (asset_id, record_date, value, currency, source) values
       ($1, $4, 34.84, 'RUB', 'test'), ($1, $5, 12.5, 'RUB', 'test'), ($2, $4, 15.5, 'RUB', 'test'), ($3, $6, 541, 'RUB', 'test')`,
    [...ids, `${NEXT_YEAR}-07-18`, `${NEXT_YEAR}-01-12`, `${NEXT_YEAR}-07-02`],
  );
  portfolioId = (await api('POST', '/api/portfolios', { name: 'Дивидендный', currency_code: 'RUB' })).data.id;
  const deal = (ticker: string, type: string, quantity: number, price: number, date: string) =>
    api('POST', `/api/portfolios/${portfolioId}/deals`, { type, assetable: stack.share(ticker), quantity, price, date });
  await deal('SBER', 'buy', 15, 250, '2023-03-10');
  await deal('SBER', 'dividend', 15, 25, '2023-07-20');
  await deal('SBER', 'dividend', 15, 33.3, '2024-07-20');
  await deal('LKOH', 'buy', 2, 6500, '2024-01-05');
  await deal('LKOH', 'dividend', 2, 450, '2024-06-01');
  // GAZP is sold: its upcoming dividend is not due.
  await deal('GAZP', 'buy', 10, 160, '2024-04-01');
  await deal('GAZP', 'sell', 10, 170, '2024-05-01');
});

async function openPortfolio(page: Page): Promise<void> {
  await page.goto(stack.base + '/sign-in');
  await page.locator('[data-testid="sign-in-user-id"]').fill(USER);
  await page.locator('[data-testid="sign-in-submit"]').click();
  await page.locator('[data-testid="signed-in-user"]').filter({ hasText: USER }).waitFor();
  await page.goto(`${stack.base}/portfolios/${portfolioId}`);
  await page.locator('[data-testid="dividends-calendar"]').waitFor();
}

/** The panel's calendar and per-year table as shown, against the API's answer. */
async function expectPanelOf(page: Page, answer: Dividends, locale: Locale): Promise<void> {
  expect(await text(page, '[data-testid="dividends"] h2')).toBe('Дивиденды');
  const { expected, received_by_year: years } = answer.data;
  expect(expected.map((d) => `${d.ticker} ${d.record_date}`)).toEqual([`SBER ${NEXT_YEAR}-01-12`, `LKOH ${NEXT_YEAR}-07-02`, `SBER ${NEXT_YEAR}-07-18`]);
  // Months in order, each holding its own dividends.
  const months = await page.locator('[data-testid="dividends-month"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-month')));
  expect(months).toEqual([`${NEXT_YEAR}-01`, `${NEXT_YEAR}-07`]);
  expect(await text(page, '[data-testid="dividends-month"] th')).toBe(`январь ${NEXT_YEAR} г.`);
  const rows = page.locator('[data-testid="dividend-row"]');
  expect(await rows.count()).toBe(expected.length);
  for (const [i, d] of expected.entries()) {
    const row = rows.nth(i);
    expect(await row.getAttribute('data-ticker')).toBe(d.ticker);
    // The ticker opens its asset page.
    expect(await row.locator('a[data-testid="dividend-ticker"]').getAttribute('href')).toBe(`/assets/${d.assetable.type}/${d.ticker}`);
    expect((await row.locator('[data-testid="dividend-date"]').innerText()).trim()).toBe(formatDay(d.record_date, locale));
    expect((await row.locator('[data-testid="dividend-per-share"]').innerText()).replace(/\s+/g, ' ').trim()).toBe(formatMoney(Number(d.per_share), d.currency, locale));
    expect((await row.locator('[data-testid="dividend-due"]').innerText()).replace(/\s+/g, ' ').trim()).toBe(formatMoney(Number(d.amount), d.currency, locale));
  }
  expect(years).toEqual([
    { year: 2023, amount: '375' },
    { year: 2024, amount: '1399.5' },
  ]);
  for (const y of years) {
    expect(await text(page, `[data-testid="dividends-year"][data-year="${y.year}"] [data-testid="dividends-year-amount"]`)).toBe(formatMoney(Number(y.amount), 'RUB', locale));
  }
}

describe('dividends panel in Russian', () => {
  it('at desktop width: the calendar by month and the income per year equal the API', async () => {
    const answer: Dividends = await api('GET', `/api/portfolios/${portfolioId}/dividends`);
    expect(answer.data.expected.find((d) => d.ticker === 'SBER')!.amount).toBe('187.5');
    const page = await freshPage({ locale: 'ru-RU' });
    await openPortfolio(page);
    await expectPanelOf(page, answer, 'ru');
    await page.locator('[data-testid="dividends"]').scrollIntoViewIfNeeded();
    await screenshot(page, 'dividends-ru');
  });

  it('at phone width (390 px): the same panel, and the page does not scroll sideways', async () => {
    const answer: Dividends = await api('GET', `/api/portfolios/${portfolioId}/dividends`);
    const page = await freshPage({ locale: 'ru-RU', width: 390, height: 844 });
    await openPortfolio(page);
    await expectPanelOf(page, answer, 'ru');
    const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    await page.locator('[data-testid="dividends"]').scrollIntoViewIfNeeded();
    await screenshot(page, 'dividends-phone-ru');
  });
});

describe('dividends panel in English', () => {
  it('names the panel and its columns in English', async () => {
    const page = await freshPage({ locale: 'en-US' });
    await openPortfolio(page);
    expect(await text(page, '[data-testid="dividends"] h2')).toBe('Dividends');
    expect(await text(page, '[data-testid="dividends-calendar"] thead')).toContain('Due to you');
    expect(await text(page, '[data-testid="dividends-by-year"] thead')).toContain('Year');
    expect(await text(page, '[data-testid="dividends"]')).toContain('Received per year');
  });
});
