/**
 * The watchlists screen in a real browser (system Chromium through playwright-core) against the whole product
 * in-process (support/web-stack.ts), in the pattern of browser.e2e.test.ts: in Russian, a person creates a list from
 * the empty state, adds SBER and GAZP with the asset picker, sees each one's price, currency and 24 h change exactly
 * as the web client formats the API's answer for the same items (green up, red down), removes one and deletes the
 * list, each after confirming in the confirm dialog. At desktop width and at 390 px; screenshots in .runtime/screenshots/.
 */
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { paths } from '../../../web/src/api/openapi.js';
import { formatMoney, formatPercent } from '../../../web/src/format/number-format.js';
import { screenshot } from '../support/browser.js';
import { type FreshPage, useBrowserStack } from '../support/browser-stack.js';
import type { WebStack } from '../support/web-stack.js';

let stack: WebStack;
let freshPage: FreshPage;
useBrowserStack('web_watchlists', { tickers: ['SBER', 'GAZP'] }, (s) => ({ stack, freshPage } = s));

/** The watchlists as HTTP answers them, typed by the web client's API types. */
type Watchlists = paths['/api/watchlists']['get']['responses'][200]['content']['application/json']['data'];

// Known prices with a 24 h change each way, newer than the demo data's.
const RATES = [
  { ticker: 'SBER', rate: 312.45, change: 1.37 },
  { ticker: 'GAZP', rate: 128.9, change: -2.15 },
];

beforeAll(async () => {
  await stack.publishRates(RATES);
});

const VIEWS = [
  { tag: 'desktop', width: 1440, height: 900 },
  { tag: 'phone', width: 390, height: 844 },
] as const;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies are read loosely; the assertions check their shape
async function api(user: string, method: string, path: string, body?: unknown): Promise<any> {
  const r = await stack.api(method, path, { user, body });
  expect(r.status, `${method} ${path}: ${r.text}`).toBeLessThan(300);
  return r.body;
}

async function signIn(page: Page, userId: string): Promise<void> {
  await page.goto(stack.base + '/sign-in');
  await page.locator('[data-testid="sign-in-user-id"]').fill(userId);
  await page.locator('[data-testid="sign-in-submit"]').click();
  await page.locator('[data-testid="signed-in-user"]').filter({ hasText: userId }).waitFor();
}

/** Finds `ticker` with the list's asset picker, picks it and adds it; waits for its row. */
async function addAsset(page: Page, ticker: string): Promise<void> {
  const field = page.locator('[data-testid="watchlist-asset-search"]');
  await field.click();
  await field.fill(ticker);
  await page.locator(`[data-testid="watchlist-asset-option"][data-ticker="${ticker}"]`).click();
  await page.locator('[data-testid="watchlist-add"]').click();
  await page.locator(`[data-testid="watchlist-row"][data-ticker="${ticker}"]`).waitFor();
}

/** What each row shows: ticker, price, change and the change's colour class. */
async function shownRows(page: Page): Promise<{ ticker: string; price: string; change: string; tone: string }[]> {
  return page.locator('[data-testid="watchlist-row"]').evaluateAll((rows) =>
    rows.map((r) => {
      const change = r.querySelector('[data-testid="watchlist-change"]');
      return {
        ticker: r.getAttribute('data-ticker') ?? '',
        price: (r.querySelector('[data-testid="watchlist-price"]')?.textContent ?? '').replace(/\s+/g, ' ').trim(),
        change: (change?.textContent ?? '').replace(/\s+/g, ' ').trim(),
        tone: change?.classList.contains('up') ? 'up' : change?.classList.contains('down') ? 'down' : '',
      };
    }),
  );
}

/** The page is no wider than the viewport. */
async function fitsWidth(page: Page): Promise<void> {
  const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
  expect(overflow).toBeLessThanOrEqual(0);
}

describe.each(VIEWS)('the watchlists screen in Russian ($tag)', (view) => {
  it('creates a list, adds SBER and GAZP with their price and 24 h change as the API answers them, removes one, deletes the list', async () => {
    const page = await freshPage({ width: view.width, height: view.height, locale: 'ru-RU' });
    const user = `watch-${randomUUID().slice(0, 8)}`;
    await signIn(page, user);

    // Reached from the navigation; the tab's title names the screen; nothing yet: what a watchlist is for.
    // At phone width the sections are behind the menu button.
    if (!(await page.locator('[data-testid="nav-watchlists"]').isVisible())) await page.locator('[data-testid="nav-menu"]').click();
    await page.locator('[data-testid="nav-watchlists"]').click();
    await page.waitForURL(/\/watchlists$/);
    await expect.poll(() => page.title()).toBe('Списки наблюдения · Инвест-трекер');
    const empty = page.locator('[data-testid="watchlists-empty"]');
    await empty.waitFor();
    expect(await empty.innerText()).toContain('Список наблюдения собирает активы');
    await fitsWidth(page);
    await screenshot(page, `watchlists-empty-${view.tag}`);

    await page.locator('[data-testid="watchlist-name"]').fill('Голубые фишки');
    await page.locator('[data-testid="watchlist-create"]').click();
    const list = page.locator('[data-testid="watchlist-item"]').filter({ hasText: 'Голубые фишки' });
    await list.waitFor();
    await empty.waitFor({ state: 'detached' });
    await list.locator('[data-testid="watchlist-no-items"]').waitFor();

    await addAsset(page, 'SBER');
    await addAsset(page, 'GAZP');

    // The published rates have reached the portfolios service's prices (asynchronously): the API answers them.
    let lists: Watchlists = [];
    await expect
      .poll(
        async () => {
          lists = (await api(user, 'GET', '/api/watchlists')).data;
          return lists[0]?.items.map((i) => [i.asset?.ticker, i.asset?.current_rate, i.asset?.price_change_percentage_24h]);
        },
        { timeout: 15_000 },
      )
      .toEqual(RATES.map((r) => [r.ticker, r.rate, r.change]));
    const expected = lists[0]!.items.map((i) => ({
      ticker: i.asset!.ticker,
      price: formatMoney(i.asset!.current_rate, i.asset!.currency!, 'ru'),
      change: formatPercent(i.asset!.price_change_percentage_24h, 'ru'),
      tone: i.asset!.price_change_percentage_24h! > 0 ? 'up' : 'down',
    }));
    // Literally, so a formatter that changed with the page could not pass: Russian digits, ₽, signs.
    expect(expected).toEqual([
      { ticker: 'SBER', price: '312,45 ₽', change: '+1,37 %', tone: 'up' },
      { ticker: 'GAZP', price: '128,90 ₽', change: '-2,15 %', tone: 'down' },
    ]);
    // The screen reads the list again (it may have shown an older price before the rates arrived).
    await page.reload();
    await expect.poll(() => shownRows(page), { timeout: 10_000 }).toEqual(expected);
    // A share's ticker opens its asset page.
    expect(await page.locator('[data-testid="watchlist-row"][data-ticker="SBER"] a[data-testid="watchlist-ticker"]').getAttribute('href')).toBe('/assets/share/SBER');
    expect(await list.locator('[data-testid="watchlist-count"]').innerText()).toBe('2 актива');
    await fitsWidth(page);
    await screenshot(page, `watchlists-${view.tag}`);

    // An alert on the whole list opens on it.
    await list.locator('[data-testid="watchlist-create-alert"]').click();
    const dialog = page.locator('[data-testid="alert-dialog"]');
    expect(await dialog.innerText()).toContain('Голубые фишки');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    // Removing one asks first, naming it and the list; Cancel keeps it and gives the focus back to its button.
    const removeGazp = page.locator('[data-testid="watchlist-row"][data-ticker="GAZP"] [data-testid="watchlist-remove"]');
    await removeGazp.click();
    const confirm = page.locator('[data-testid="confirm-dialog"]');
    expect(await confirm.locator('[data-testid="confirm-message"]').innerText()).toBe('Убрать GAZP из списка «Голубые фишки»?');
    await page.locator('[data-testid="confirm-cancel"]').click();
    await confirm.waitFor({ state: 'detached' });
    expect(await page.evaluate("document.activeElement?.getAttribute('aria-label') ?? null")).toBe('Убрать GAZP из списка');
    expect((await shownRows(page)).map((r) => r.ticker)).toEqual(['SBER', 'GAZP']);
    await removeGazp.click();
    await page.locator('[data-testid="confirm-ok"]').click();
    await page.locator('[data-testid="watchlist-row"][data-ticker="GAZP"]').waitFor({ state: 'detached' });
    expect((await shownRows(page)).map((r) => r.ticker)).toEqual(['SBER']);
    expect((await api(user, 'GET', '/api/watchlists')).data[0].items.map((i: { asset: { ticker: string } }) => i.asset.ticker)).toEqual(['SBER']);

    // Deleting the list asks first; cancel keeps it, confirming deletes it and the empty state is back.
    await page.locator('[data-testid="watchlist-delete"]').click();
    expect(await confirm.locator('[data-testid="confirm-title"]').innerText()).toBe('Удаление списка');
    expect(await confirm.locator('[data-testid="confirm-message"]').innerText()).toBe('Удалить список «Голубые фишки» и 1 актив в нём? Уведомления на этот список выключатся.');
    // The dialog fits the screen: its buttons in view at either width.
    for (const button of ['confirm-cancel', 'confirm-ok']) expect(await page.locator(`[data-testid="${button}"]`).isVisible()).toBe(true);
    await fitsWidth(page);
    await screenshot(page, `watchlists-delete-confirm-${view.tag}`);
    await page.locator('[data-testid="confirm-cancel"]').click();
    await confirm.waitFor({ state: 'detached' });
    expect((await api(user, 'GET', '/api/watchlists')).data).toHaveLength(1);
    await page.locator('[data-testid="watchlist-delete"]').click();
    await page.locator('[data-testid="confirm-ok"]').click();
    await empty.waitFor();
    expect((await api(user, 'GET', '/api/watchlists')).data).toEqual([]);
  });
});

it('names the screen in English too', async () => {
  const page = await freshPage({ locale: 'en-US' });
  await signIn(page, `watch-${randomUUID().slice(0, 8)}`);
  await page.goto(`${stack.base}/watchlists`);
  await page.locator('[data-testid="watchlists-empty"]').waitFor();
  await expect.poll(() => page.title()).toBe('Watchlists · Invest tracker');
  expect(await page.locator('[data-testid="nav-watchlists"]').innerText()).toBe('Watchlists');
  expect(await page.locator('[data-testid="watchlists-empty"]').innerText()).toContain('A watchlist gathers the assets you follow');
});
