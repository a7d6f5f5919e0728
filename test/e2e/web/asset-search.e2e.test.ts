/**
 * The asset picker of the deal form, the alert dialog and the watchlists screen in a real browser: it finds assets
 * of every type through `GET /api/assets` (here a bond and a token, added to the catalogue as a full rates run adds
 * new listings), is driven with the keyboard (↓/↑, Enter), shows ticker, name and type in the UI's language, and
 * what it picks is what the deal, the alert and the watchlist item are created on. At desktop width in English and at 390 px in Russian; screenshots
 * in .runtime/screenshots/.
 */
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { addCatalogAssetsForTest } from '@invest/screener/testing/rates-test-kit';
import { beforeAll, describe, expect, it } from 'vitest';
import { screenshot } from '../support/browser.js';
import { type FreshPage, useBrowserStack } from '../support/browser-stack.js';
import type { WebStack } from '../support/web-stack.js';

let stack: WebStack;
let freshPage: FreshPage;
useBrowserStack('asset_web', { tickers: ['SBER'] }, (s) => ({ stack, freshPage } = s));

const BOND = { ticker: 'SU26238RMFS4', name: 'ОФЗ-ПД 26238 15/05/2041', shortName: 'ОФЗ 26238', latinName: 'OFZ-PD 26238 15/05/2041', isin: 'RU000A1038V6', currency: 'RUB', rate: 571.2 };
const TOKEN = { ticker: 'TON', coinId: 'the-open-network', name: 'Toncoin', currency: 'USD', rate: 2.21 };
let bondId: number;
let tokenId: number;

beforeAll(async () => {
  bondId = (await addCatalogAssetsForTest(stack.screener.db, 'bond', [BOND]))[BOND.ticker]!;
  tokenId = (await addCatalogAssetsForTest(stack.screener.db, 'token', [TOKEN]))[TOKEN.ticker]!;
});

const VIEWS = [
  { tag: 'desktop', width: 1280, height: 800, locale: 'en-US', bondType: 'Bond', tokenType: 'Token' },
  { tag: 'phone', width: 390, height: 844, locale: 'ru-RU', bondType: 'Облигация', tokenType: 'Токен' },
] as const;

async function signIn(page: Page, userId: string): Promise<void> {
  await page.goto(stack.base + '/sign-in');
  await page.locator('[data-testid="sign-in-user-id"]').fill(userId);
  await page.locator('[data-testid="sign-in-submit"]').click();
  await page.locator('[data-testid="signed-in-user"]').filter({ hasText: userId }).waitFor();
}

/** The rows the picker lists: ticker, type and the text shown. */
async function options(page: Page, testId: string): Promise<{ ticker: string | null; type: string | null; text: string; selected: string | null }[]> {
  await page.locator(`[data-testid="${testId}-option"]`).first().waitFor();
  return page
    .locator(`[data-testid="${testId}-option"]`)
    .evaluateAll((rows) => rows.map((r) => ({ ticker: r.getAttribute('data-ticker'), type: r.getAttribute('data-type'), text: r.textContent ?? '', selected: r.getAttribute('aria-selected') })));
}

/** The page is no wider than the viewport (nothing of the picker spills out sideways). */
async function fitsWidth(page: Page): Promise<void> {
  const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
  expect(overflow).toBeLessThanOrEqual(0);
}

describe.each(VIEWS)('the asset picker ($tag)', (view) => {
  it('finds a bond by its Russian name in the deal form, picked with the keyboard, and the deal is on the bond', async () => {
    const page = await freshPage({ width: view.width, height: view.height, locale: view.locale });
    const user = `picker-${randomUUID().slice(0, 8)}`;
    await signIn(page, user);
    const created = await stack.api('POST', '/api/portfolios', { user, body: { name: 'Bonds', currency_code: 'RUB' } });
    expect(created.status, created.text).toBe(201);
    const portfolioId = created.body.data.id as number;
    await page.goto(`${stack.base}/portfolios/${portfolioId}`);

    const field = page.locator('[data-testid="deal-asset-search"]');
    await field.click();
    await field.pressSequentially('офз 26238', { delay: 20 });
    const listed = await options(page, 'deal-asset');
    expect(listed[0]).toMatchObject({ ticker: BOND.ticker, type: 'bond', selected: 'true' });
    expect(listed[0]!.text).toContain(BOND.name);
    expect(listed[0]!.text).toContain(view.bondType);
    await page.locator('[data-testid="deal-asset-options"]').scrollIntoViewIfNeeded();
    await fitsWidth(page);
    await screenshot(page, `asset-picker-deal-${view.tag}`);

    // ↓ then ↑ comes back to the first row; Enter picks it and does not submit the form.
    await field.press('ArrowDown');
    await field.press('ArrowUp');
    await expect.poll(() => page.locator('[data-testid="deal-asset-option"][aria-selected="true"]').getAttribute('data-ticker')).toBe(BOND.ticker);
    // A combobox whose active descendant is the highlighted option of its listbox (what a screen reader reads out).
    expect(await field.getAttribute('role')).toBe('combobox');
    expect(await field.getAttribute('aria-expanded')).toBe('true');
    const listbox = page.locator('[data-testid="deal-asset-options"]');
    expect(await listbox.getAttribute('role')).toBe('listbox');
    expect(await field.getAttribute('aria-controls')).toBe(await listbox.getAttribute('id'));
    expect(await field.getAttribute('aria-activedescendant')).toBe(await listbox.locator('[role="option"][aria-selected="true"]').getAttribute('id'));
    await field.press('Enter');
    await page.locator('[data-testid="deal-asset-picked"][data-type="bond"]').waitFor();
    expect(await field.inputValue()).toBe(BOND.ticker);
    expect(await page.locator('[data-testid="deal-asset-options"]').count()).toBe(0);
    expect(await page.locator('[data-testid="deal-item"]').count()).toBe(0);
    // The price follows the picked asset's rate.
    expect((await page.locator('[data-testid="deal-price"]').inputValue()).replace(',', '.')).toBe('571.2');
    await page.locator('[data-testid="deal-quantity"]').fill('3');
    await screenshot(page, `asset-picker-deal-picked-${view.tag}`);
    await page.locator('[data-testid="deal-submit"]').click();
    await page.locator('[data-testid="deal-item"]').filter({ hasText: BOND.ticker }).waitFor();
    const deals = await stack.api('GET', `/api/portfolios/${portfolioId}/deals`, { user });
    expect(deals.body.data.map((d: { assetable: unknown; quantity: number }) => [d.assetable, d.quantity])).toEqual([[{ type: 'bond', id: bondId }, 3]]);
    // The field is empty again for the next deal.
    expect(await field.inputValue()).toBe('');
  });

  it('finds a token in the alert dialog opened from the alerts screen, and the alert is on the token', async () => {
    const page = await freshPage({ width: view.width, height: view.height, locale: view.locale });
    const user = `picker-${randomUUID().slice(0, 8)}`;
    await signIn(page, user);
    await page.goto(`${stack.base}/notifications`);
    await page.locator('[data-testid="alert-new"]').click();
    const dialog = page.locator('[data-testid="alert-dialog"]');
    await dialog.waitFor();
    // The search field has the focus: typing goes straight into it.
    await page.keyboard.type('toncoin', { delay: 20 });
    const field = page.locator('[data-testid="alert-asset-search"]');
    const listed = await options(page, 'alert-asset');
    expect(listed[0]).toMatchObject({ ticker: TOKEN.ticker, type: 'token' });
    expect(listed[0]!.text).toContain(view.tokenType);
    await fitsWidth(page);
    await screenshot(page, `asset-picker-alert-${view.tag}`);
    // Escape closes the list, not the dialog; ↓ opens it again on its first row and Enter picks it.
    await field.press('Escape');
    expect(await page.locator('[data-testid="alert-asset-options"]').count()).toBe(0);
    await expect.poll(() => dialog.count()).toBe(1);
    await field.press('ArrowDown');
    await page.locator('[data-testid="alert-asset-option"][aria-selected="true"]').waitFor();
    await field.press('Enter');
    await page.locator('[data-testid="alert-asset-picked"][data-type="token"]').waitFor();
    await expect.poll(() => page.locator('#alert-title').textContent()).toContain(TOKEN.ticker);
    await page.locator('[data-testid="alert-target-price"]').fill(view.locale === 'ru-RU' ? '3,5' : '3.5');
    await screenshot(page, `asset-picker-alert-picked-${view.tag}`);
    await page.locator('[data-testid="alert-submit"]').click();
    await dialog.waitFor({ state: 'detached' });
    await page.locator('[data-testid="alert-item"]').first().waitFor();
    const alerts = await stack.api('GET', '/api/notifications', { user });
    expect(alerts.body.data.map((a: { target: { asset_type: string; id: number; ticker: string }; condition: { value: number } }) => [a.target.asset_type, a.target.id, a.target.ticker, a.condition.value])).toEqual([
      ['token', tokenId, TOKEN.ticker, 3.5],
    ]);
  });

  it('adds a bond found by its name to a watchlist with the asset picker', async () => {
    const page = await freshPage({ width: view.width, height: view.height, locale: view.locale });
    const user = `picker-${randomUUID().slice(0, 8)}`;
    await signIn(page, user);
    const created = await stack.api('POST', '/api/watchlists', { user, body: { name: 'Watch' } });
    expect(created.status, created.text).toBe(201);
    await page.goto(`${stack.base}/watchlists`);
    const field = page.locator('[data-testid="watchlist-asset-search"]');
    await field.click();
    await field.pressSequentially('ОФЗ 26238', { delay: 20 });
    const listed = await options(page, 'watchlist-asset');
    expect(listed[0]).toMatchObject({ ticker: BOND.ticker, type: 'bond', selected: 'true' });
    await field.press('Enter');
    await page.locator('[data-testid="watchlist-add"]').click();
    await page.locator('[data-testid="watchlist-item"]').filter({ hasText: BOND.ticker }).waitFor();
    const lists = await stack.api('GET', '/api/watchlists', { user });
    expect(lists.body.data[0].items.map((i: { assetable: unknown }) => i.assetable)).toEqual([{ type: 'bond', id: bondId }]);
  });
});
