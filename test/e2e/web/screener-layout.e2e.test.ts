/**
 * The screener as a Finviz user meets it, in a real browser (system Chromium through playwright-core) against the
 * whole product in-process (support/web-stack.ts, as browser.e2e.test.ts): at 1440 px in Russian every column and
 * the notify button are inside the viewport and the table header stays in view while the rows scroll; the dividend
 * yield and market cap ranges filter as the API does; a page past the end shows the last page; counts are worded
 * by the plural rules. Element boxes are compared with the viewport; screenshots go to .runtime/screenshots/.
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
useBrowserStack('web_layout', { tickers: ['SBER', 'GAZP'] }, (s) => ({ stack, freshPage } = s));

interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies are read loosely; the assertions check their shape
async function apiGet(path: string): Promise<any> {
  const res = await fetch(new URL(path, stack.base), { headers: { 'accept-language': 'en' } });
  expect(res.status, path).toBe(200);
  return res.json();
}

/** Tickers of the page the API answers for a screener query (the screen's parameters, explicit). */
async function apiTickers(query: Record<string, string>): Promise<string[]> {
  const q = new URLSearchParams({ page: '1', per_page: '25', sort: 'market_cap', direction: 'desc', ...query });
  return ((await apiGet(`/api/public/shares?${q}`)) as { data: { asset: string }[] }).data.map((r) => r.asset);
}

async function shownTickers(page: Page): Promise<string[]> {
  await page.locator('[data-testid="screener-table"][data-loading="false"]').waitFor();
  return page.locator('[data-testid="screener-row"]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-ticker') ?? ''));
}

async function expectRows(page: Page, expected: string[], what: string): Promise<void> {
  expect(expected.length, `the API has rows for ${what}`).toBeGreaterThan(0);
  await expect.poll(() => shownTickers(page), { message: what, timeout: 10_000 }).toEqual(expected);
}

async function signIn(page: Page, userId: string): Promise<void> {
  await page.goto(stack.base + '/sign-in');
  await page.locator('[data-testid="sign-in-user-id"]').fill(userId);
  await page.locator('[data-testid="sign-in-submit"]').click();
  await page.locator('[data-testid="signed-in-user"]').filter({ hasText: userId }).waitFor();
}

/** The box of every element matching `selector` (viewport coordinates). */
async function boxes(page: Page, selector: string): Promise<(Box & { text: string; clipped: boolean })[]> {
  return page.locator(selector).evaluateAll((els) =>
    els.map((el) => {
      const r = el.getBoundingClientRect();
      // Text wider than its own box is cut (ellipsis or overflow), even when the box itself is on screen.
      return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, text: (el.textContent ?? '').trim(), clipped: el.scrollWidth > el.clientWidth + 1 };
    }),
  );
}

const viewportOf = async (page: Page) => (await page.evaluate('({ width: document.documentElement.clientWidth, height: window.innerHeight })')) as { width: number; height: number };

/** Russian plural by hand (the CLDR rule for integers), independent of the client's helper. */
function ruShares(n: number): string {
  if (n % 10 === 1 && n % 100 !== 11) return 'акция';
  if ([2, 3, 4].includes(n % 10) && ![12, 13, 14].includes(n % 100)) return 'акции';
  return 'акций';
}

describe('screener layout', () => {
  it('fits 1440 px in Russian: no column cut, the notify button on screen, the header visible after scrolling', async () => {
    const page = await freshPage({ width: 1440, height: 900, locale: 'ru-RU' });
    await signIn(page, `layout-${randomUUID().slice(0, 8)}`);
    await page.goto(stack.base + '/?per_page=50');
    await expectRows(page, await apiTickers({ per_page: '50' }), 'the Russian view');
    const viewport = await viewportOf(page);
    expect(viewport.width).toBe(1440);

    // Neither the page nor the table's own box scrolls sideways: nothing is hidden to the right.
    expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBeLessThanOrEqual(0);
    const wrap = (await page.locator('.table-wrap').evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }))) as { scroll: number; client: number };
    expect(wrap.scroll, 'the table is wider than its box').toBeLessThanOrEqual(wrap.client);

    const headers = await boxes(page, '[data-testid="screener-table"] thead th');
    expect(headers.map((h) => h.text)).toEqual(expect.arrayContaining(['Акция', 'Цена', 'Категория', 'Страна']));
    for (const h of headers) {
      expect(h.left, `header "${h.text}" starts on screen`).toBeGreaterThanOrEqual(0);
      expect(h.right, `header "${h.text}" ends on screen`).toBeLessThanOrEqual(viewport.width);
      expect(h.clipped, `header "${h.text}" is not cut`).toBe(false);
    }
    // Every cell of every row is whole and on screen (the long category names included), the notify button too.
    const cells = await boxes(page, '[data-testid="screener-row"] td');
    expect(cells.length).toBe(50 * headers.length);
    for (const c of cells) {
      expect(c.right, `cell "${c.text}"`).toBeLessThanOrEqual(viewport.width);
      expect(c.clipped, `cell "${c.text}" is not cut`).toBe(false);
    }
    const buttons = await boxes(page, '[data-testid="row-create-alert"]');
    expect(buttons.length).toBe(50);
    for (const b of buttons.slice(0, 5)) {
      expect(b.left).toBeGreaterThanOrEqual(0);
      expect(b.right).toBeLessThanOrEqual(viewport.width);
      expect(b.clipped).toBe(false);
    }
    await screenshot(page, 'screener-layout-1440-ru');

    // Scrolled down the rows, the header row is still in view, below the top bar, and nothing covers it.
    await page.evaluate('window.scrollTo(0, 1200)');
    await expect.poll(() => page.evaluate('window.scrollY')).toBeGreaterThan(1000);
    const topbar = (await boxes(page, '.topbar'))[0]!;
    const after = await boxes(page, '[data-testid="screener-table"] thead th');
    for (const h of after) {
      expect(h.top, `header "${h.text}" after scrolling`).toBeGreaterThanOrEqual(topbar.bottom - 1);
      expect(h.bottom, `header "${h.text}" after scrolling`).toBeLessThanOrEqual(topbar.bottom + 80);
    }
    const country = after.find((h) => h.text === 'Страна')!;
    const onTop = await page.evaluate(`document.elementFromPoint(${(country.left + country.right) / 2}, ${(country.top + country.bottom) / 2})?.closest('thead') != null`);
    expect(onTop, 'the header is drawn over the rows, not under them').toBe(true);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'screener-layout-1440-ru-scrolled.png') });
  });

  it('between phone and 1440 px (and in English) the page never scrolls sideways, the table at most inside its box', async () => {
    for (const [width, locale] of [
      [1024, 'ru-RU'],
      [1200, 'ru-RU'],
      [1280, 'ru-RU'],
      [1300, 'ru-RU'],
      [1440, 'en-US'],
    ] as const) {
      const page = await freshPage({ width, height: 800, locale });
      await page.goto(stack.base + '/?per_page=50');
      await expectRows(page, await apiTickers({ per_page: '50' }), `${width} px ${locale}`);
      expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'), `${width} px ${locale}`).toBeLessThanOrEqual(0);
      const [alert] = await boxes(page, '[data-testid="row-sign-in-to-alert"]');
      const box = (await boxes(page, '.table-wrap'))[0]!;
      // Where the table is wider than its box, the box scrolls; the page never does.
      const wrap = (await page.locator('.table-wrap').evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }))) as { scroll: number; client: number };
      if (wrap.scroll <= wrap.client) expect(alert!.right, `${width} px ${locale}: the alert link`).toBeLessThanOrEqual(box.right);
      await page.close();
    }
  });

  it('at 390 px the page does not scroll sideways and the filters are on screen', async () => {
    const page = await freshPage({ width: 390, height: 844, locale: 'ru-RU' });
    await page.goto(stack.base + '/');
    await expectRows(page, await apiTickers({}), 'the phone view');
    expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBeLessThanOrEqual(0);
    for (const id of ['screener-search', 'filter-category', 'filter-country', 'filter-yield-min', 'filter-yield-max', 'filter-cap-min', 'filter-cap-max']) {
      const [b] = await boxes(page, `[data-testid="${id}"]`);
      expect(b!.left, id).toBeGreaterThanOrEqual(0);
      expect(b!.right, id).toBeLessThanOrEqual(390);
    }
    await screenshot(page, 'screener-layout-390-ru');
  });
});

describe('screener filters, paging and counts', () => {
  it('filters by a dividend yield and a market cap range as the API does, with the ranges in the URL', async () => {
    const page = await freshPage({ locale: 'ru-RU' });
    await page.goto(stack.base + '/');
    await expectRows(page, await apiTickers({}), 'the default view');

    await page.locator('[data-testid="filter-yield-min"]').fill('5');
    await expectRows(page, await apiTickers({ dividend_yield_min: '5' }), 'yield from 5 %');
    expect(new URL(page.url()).searchParams.get('dividend_yield_min')).toBe('5');

    // Billions on the screen, roubles in the API; the decimal comma as a Russian reader types it.
    await page.locator('[data-testid="filter-cap-min"]').fill('100');
    await page.locator('[data-testid="filter-cap-max"]').fill('2000,5');
    await page.locator('[data-testid="filter-cap-max"]').press('Enter');
    const query = { dividend_yield_min: '5', market_cap_min: '100000000000', market_cap_max: '2000500000000' };
    await expectRows(page, await apiTickers(query), 'yield from 5 %, cap 100 to 2000.5 bn');
    const url = new URL(page.url());
    expect([url.searchParams.get('market_cap_min'), url.searchParams.get('market_cap_max')]).toEqual(['100000000000', '2000500000000']);
    await screenshot(page, 'screener-ranges');

    // An inverted range is marked on the field and never sent.
    await page.locator('[data-testid="filter-yield-max"]').fill('1');
    await page.locator('[data-testid="filter-yield-max"]').press('Enter');
    await expect.poll(() => page.locator('[data-testid="filter-yield-max"]').getAttribute('aria-invalid')).toBe('true');
    expect(new URL(page.url()).searchParams.get('dividend_yield_max')).toBeNull();
    await expect(page.locator('[data-testid="screener-error"]').count()).resolves.toBe(0);

    // The link reproduces the view, the fields included.
    const other = await freshPage({ locale: 'ru-RU' });
    await other.goto(page.url());
    await expectRows(other, await apiTickers(query), 'the same view from its link');
    expect(await other.locator('[data-testid="filter-cap-max"]').inputValue()).toBe('2000.5');
  });

  it('a page past the end shows the last page', async () => {
    const page = await freshPage();
    const meta = (await apiGet('/api/public/shares?per_page=25')).meta as { last_page: number };
    expect(meta.last_page).toBeGreaterThan(1);
    await page.goto(stack.base + '/?page=999');
    await expectRows(page, await apiTickers({ page: String(meta.last_page) }), 'the last page');
    await expect.poll(() => page.locator('[data-testid="pager-current"]').textContent()).toBe(String(meta.last_page));
    expect(new URL(page.url()).searchParams.get('page')).toBe(String(meta.last_page));
    // A filter that leaves fewer pages than the link's page: its last page (here the first), not "nothing found".
    await page.goto(stack.base + '/?search=SBER&page=7');
    await expectRows(page, await apiTickers({ search: 'SBER' }), 'the only page of a search');
    expect(new URL(page.url()).searchParams.get('page')).toBeNull();
  });

  it('words the count by the plural rules in ru and en', async () => {
    const categories = (await apiGet('/api/public/shares/categories')).data as { slug: string; shares_count: number }[];
    for (const c of categories.filter((c) => c.shares_count > 0)) {
      for (const [locale, word] of [
        ['ru-RU', ruShares(c.shares_count)],
        ['en-US', c.shares_count === 1 ? 'share' : 'shares'],
      ] as const) {
        const page = await freshPage({ locale });
        await page.goto(`${stack.base}/?category=${c.slug}`);
        await expect.poll(() => page.locator('[data-testid="pager-total"]').textContent()).toBe(String(c.shares_count));
        expect(await page.locator('[data-testid="pager-total-word"]').textContent(), `${c.shares_count} in ${locale}`).toBe(word);
      }
    }
  });
});
