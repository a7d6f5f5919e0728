/**
 * The stand-in's widget in a real browser (support/web-stack.ts), notifying the gateway as the provider's cabinet
 * would: a card declined in the widget («Отклонить карту») shows the failure and lists the charge failed; a paid one
 * gets its receipt, linked «Чек» in the payment list. Screenshots in .runtime/screenshots/.
 */
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { screenshot } from '../support/browser.js';
import { type FreshPage, useBrowserStack } from '../support/browser-stack.js';
import type { WebStack } from '../support/web-stack.js';

let stack: WebStack;
let freshPage: FreshPage;
useBrowserStack('web_receipts', { tickers: ['SBER'] }, (s) => {
  ({ stack, freshPage } = s);
  stack.provider.notifyGateway(stack.base);
});

async function signIn(page: Page, userId: string): Promise<void> {
  await page.goto(stack.base + '/sign-in');
  await page.locator('[data-testid="sign-in-user-id"]').fill(userId);
  await page.locator('[data-testid="sign-in-submit"]').click();
  await page.locator('[data-testid="signed-in-user"]').filter({ hasText: userId }).waitFor();
}

describe('the widget: a declined card, then a receipt', () => {
  it('a declined card shows the failure and a failed charge; a paid one links its receipt «Чек»', async () => {
    const page = await freshPage({ locale: 'ru-RU' });
    const user = `rcpt-${randomUUID().slice(0, 8)}`;
    await signIn(page, user);
    await page.locator('[data-testid="nav-subscription"]').click();
    await page.locator('[data-testid="subscription-status"][data-status="none"]').waitFor();
    await page.locator('[data-testid="plan"][data-plan="basic-m"] [data-testid="plan-buy"]').click();
    await page.locator('[data-testid="payment-pay"]').click();
    await page.locator('[data-testid="cp-widget-decline"]').check();
    await screenshot(page, 'widget-decline');
    await page.locator('[data-testid="cp-widget-pay"]').click();
    expect(await page.locator('[data-testid="payment-failure"]').textContent()).toBe('Оплата не прошла: InsufficientFunds.');
    const declined = stack.provider.payments.find((p) => p.AccountId === user)!;
    expect(declined.Status).toBe('Declined');

    // Paid again with the test card: the receipt follows the payment, and the list links it.
    await page.locator('[data-testid="payment-pay"]').click();
    await page.locator('[data-testid="cp-widget-pay"]').click();
    await page.locator('[data-testid="subscription-status"][data-status="active"]').waitFor();
    const paid = stack.provider.payments.find((p) => p.AccountId === user && p.Status === 'Completed')!;
    const link = page.locator('[data-testid="payment-row"][data-status="paid"] a', { hasText: 'Чек' });
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe(`${stack.provider.url}/receipts/${paid.TransactionId}`);
    await page.locator('[data-testid="payment-row"][data-status="failed"]').waitFor();
    await screenshot(page, 'payment-list-receipt');
    expect(paid.CustomerReceipt).toMatchObject({ Items: [{ label: 'Подписка Basic, 1 месяц', price: 299 }], taxationSystem: 1 });
  });
});
