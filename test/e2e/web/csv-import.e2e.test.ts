/**
 * The CSV import panel of a portfolio in a real browser against the whole product (support/web-stack.ts): choose
 * a file, see every row with its errors before anything is stored, confirm, see the deals; the same file again
 * offers nothing to add. At desktop width in Russian and at 390 px in English; screenshots in .runtime/screenshots/.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { tbankReportSheet } from '@invest/portfolios/testing/tbank-report';
import { describe, expect, it } from 'vitest';
import writeExcelFile from 'write-excel-file/node';
import { SCREENSHOT_DIR, screenshot } from '../support/browser.js';
import { type FreshPage, useBrowserStack } from '../support/browser-stack.js';
import type { WebStack } from '../support/web-stack.js';

let stack: WebStack;
let freshPage: FreshPage;
useBrowserStack('web_csv', { tickers: ['SBER', 'GAZP'] }, (s) => ({ stack, freshPage } = s));

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const newUser = () => `csv-${randomUUID().slice(0, 8)}`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies are read loosely; the assertions check their shape
async function apiCall(method: string, path: string, user: string, body?: unknown): Promise<any> {
  const headers: Record<string, string> = { authorization: `Bearer ${await stack.token(user)}`, 'content-type': 'application/json' };
  const res = await fetch(new URL(path, stack.base), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  expect(res.ok, `${method} ${path}`).toBe(true);
  return res.json();
}

async function signIn(page: Page, userId: string): Promise<void> {
  await page.goto(stack.base + '/sign-in');
  await page.locator('[data-testid="sign-in-user-id"]').fill(userId);
  await page.locator('[data-testid="sign-in-submit"]').click();
  await page.locator('[data-testid="signed-in-user"]').filter({ hasText: userId }).waitFor();
}

/** Semicolons, decimal commas, Russian dates and types, and one row naming no asset. */
const FILE = ['Дата;Операция;Тикер;Количество;Цена;Комиссия', '10.01.2024;Покупка;SBER;10;250,5;0,5', '11.01.2024;Покупка;GAZP;100;160;1', '15.02.2024;Продажа;SBER;4;300;0', '01.03.2024;Покупка;NOSUCH;1;1;0'].join('\n');

async function openPortfolio(page: Page, user: string): Promise<number> {
  await signIn(page, user);
  const created = await apiCall('POST', '/api/portfolios', user, { name: 'CSV', currency_code: 'RUB' });
  const id = created.data.id as number;
  await page.goto(`${stack.base}/portfolios/${id}`);
  await page.locator('[data-testid="deal-import"]').waitFor();
  return id;
}

async function choose(page: Page, csv: string): Promise<void> {
  await page.locator('[data-testid="deal-import-file"]').setInputFiles({ name: 'deals.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await page.locator('[data-testid="deal-import-preview"]').waitFor();
}

describe('CSV import of deals', () => {
  it('previews rows with their errors in Russian, stores nothing until confirmed, then imports once (desktop)', async () => {
    const page = await freshPage({ locale: 'ru-RU' });
    const user = newUser();
    const id = await openPortfolio(page, user);
    await expect.poll(() => page.locator('[data-testid="deal-import"] h2').textContent()).toBe('Импорт сделок');

    await choose(page, FILE);
    expect(await page.locator('[data-testid="deal-import-summary"]').textContent()).toBe('Строк: 4. Будет добавлено: 3. Уже импортированы: 0. С ошибками: 1.');
    const statuses = await page.locator('[data-testid="deal-import-row"]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-status')));
    // Rows with errors first.
    expect(statuses).toEqual(['error', 'new', 'new', 'new']);
    // The row's error as the gateway words it in Russian (the UI sends its language with every request).
    expect(await page.locator('[data-testid="deal-import-row"][data-status="error"]').textContent()).toContain('Актив NOSUCH не найден.');
    expect(await page.locator('[data-testid="deal-import-errors"]').textContent()).toBe('Строка 5: Актив NOSUCH не найден.');
    expect(await page.locator('[data-testid="deal-import-row"]').first().locator('td').nth(2).textContent()).toBe('покупка');
    // The chosen file stays chosen while its preview is shown.
    expect(await page.locator('[data-testid="deal-import-file"]').inputValue()).toContain('deals.csv');
    expect(await page.locator('[data-testid="deal-import-confirm"]').textContent()).toBe('Импортировать 3');
    await screenshot(page, 'csv-import-preview');
    // The preview stored nothing.
    expect((await apiCall('GET', `/api/portfolios/${id}/deals`, user)).data).toEqual([]);

    await page.locator('[data-testid="deal-import-confirm"]').click();
    await expect.poll(() => page.locator('[data-testid="deal-item"]').count()).toBe(3);
    await expect.poll(() => page.locator('[data-testid="deal-import-preview"]').count()).toBe(0);
    expect(await page.locator('[data-testid="deal-import-file"]').inputValue()).toBe('');
    const deals = (await apiCall('GET', `/api/portfolios/${id}/deals`, user)).data as { type: string; quantity: number; price: number; asset: { ticker: string } }[];
    expect(deals.map((d) => `${d.type} ${d.quantity} ${d.asset.ticker} @ ${d.price}`).sort()).toEqual(['buy 10 SBER @ 250.5', 'buy 100 GAZP @ 160', 'sell 4 SBER @ 300']);
    await page.locator('[data-testid="portfolio-statistics"] [data-testid="metric-networth"]').waitFor();
    await screenshot(page, 'csv-import-done');

    // The same file again: every row already imported, nothing to add.
    await choose(page, FILE);
    expect(await page.locator('[data-testid="deal-import-summary"]').textContent()).toBe('Строк: 4. Будет добавлено: 0. Уже импортированы: 3. С ошибками: 1.');
    expect(await page.locator('[data-testid="deal-import-confirm"]').isDisabled()).toBe(true);
    await page.locator('[data-testid="deal-import-cancel"]').click();
    await expect.poll(() => page.locator('[data-testid="deal-import-preview"]').count()).toBe(0);

    // A file it cannot read says why, in Russian.
    await page.locator('[data-testid="deal-import-file"]').setInputFiles({ name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from('Дата;Тикер\n10.01.2024;SBER\n') });
    await expect.poll(() => page.locator('[data-testid="deal-import-error"]').textContent()).toBe('В заголовке нет колонок: type, quantity, price. Нужны дата, тип, тикер (или ISIN), количество, цена.');
    await page.locator('[data-testid="deal-import"]').screenshot({ path: join(SCREENSHOT_DIR, 'csv-import-bad-file.png') });

    // T-Bank's broker report as it is downloaded (XLSX): its executed deals, named as such.
    const report = await writeExcelFile(tbankReportSheet([{ date: '20.03.2024', side: 'Покупка', ticker: 'GAZP', price: 161, quantity: 5, commission: 0.2 }])).toBuffer();
    await page.locator('[data-testid="deal-import-file"]').setInputFiles({ name: 'broker-report-2024.xlsx', mimeType: XLSX, buffer: report });
    await page.locator('[data-testid="deal-import-preview"]').waitFor();
    expect(await page.locator('[data-testid="deal-import-summary"]').textContent()).toBe('Отчёт брокера Т‑Банка. Строк: 1. Будет добавлено: 1. Уже импортированы: 0. С ошибками: 0.');
    await page.locator('[data-testid="deal-import"]').screenshot({ path: join(SCREENSHOT_DIR, 'csv-import-tbank.png') });
    await page.locator('[data-testid="deal-import-confirm"]').click();
    await expect.poll(() => page.locator('[data-testid="deal-item"]').count()).toBe(4);
  });

  it('fits a phone (390 px) in English, and says why a file without a header cannot be read', async () => {
    const page = await freshPage({ width: 390, height: 844 });
    await openPortfolio(page, newUser());
    await choose(page, FILE);
    expect(await page.locator('[data-testid="deal-import-summary"]').textContent()).toBe('Rows: 4. To add: 3. Already imported: 0. With errors: 1.');
    expect(await page.locator('[data-testid="deal-import-row"][data-status="error"]').textContent()).toContain('ticker: No asset NOSUCH was found.');
    const errors = page.locator('[data-testid="deal-import-errors"]');
    expect(await errors.textContent()).toBe('Line 5: ticker: No asset NOSUCH was found.');
    // The errors are readable without scrolling sideways: the list fits the phone.
    const box = (await errors.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    // The table scrolls inside its box; the page itself does not get wider than the phone.
    expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBeLessThanOrEqual(0);
    await page.locator('[data-testid="deal-import-preview"]').scrollIntoViewIfNeeded();
    await screenshot(page, 'csv-import-phone');

    await page.locator('[data-testid="deal-import-file"]').setInputFiles({ name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from('a;b\n1;2\n') });
    await expect.poll(() => page.locator('[data-testid="deal-import-error"]').textContent()).toContain('The header has no date');
  });
});
