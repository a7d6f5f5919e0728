/**
 * Cancel, resume and the payment history on the subscription screen, in a real browser against the whole
 * product (support/web-stack.ts) with the local CloudPayments: pay through its widget, see the payment listed,
 * cancel (asked first) and see «cancelled, active until …», resume and see it active again with a new provider
 * subscription. Screenshots in .runtime/screenshots/.
 */
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { screenshot } from '../support/browser.js';
import { type FreshPage, useBrowserStack } from '../support/browser-stack.js';
import type { WebStack } from '../support/web-stack.js';

let stack: WebStack;
let freshPage: FreshPage;
useBrowserStack('web_renewal', { tickers: ['SBER'] }, (s) => ({ stack, freshPage } = s));

const newUser = () => `renew-${randomUUID().slice(0, 8)}`;

async function signIn(page: Page, userId: string): Promise<void> {
  await page.goto(stack.base + '/sign-in');
  await page.locator('[data-testid="sign-in-user-id"]').fill(userId);
  await page.locator('[data-testid="sign-in-submit"]').click();
  await page.locator('[data-testid="signed-in-user"]').filter({ hasText: userId }).waitFor();
}

describe('subscription renewal', () => {
  it('lists the payment, cancels after asking, shows «cancelled, active until …», and resumes', async () => {
    const page = await freshPage({ locale: 'ru-RU' });
    const user = newUser();
    await signIn(page, user);
    await page.locator('[data-testid="nav-subscription"]').click();
    await page.locator('[data-testid="subscription-status"][data-status="none"]').waitFor();
    await page.locator('[data-testid="payment-history-empty"]').waitFor();
    await page.locator('[data-testid="plan"][data-plan="basic-m"] [data-testid="plan-buy"]').click();
    await page.locator('[data-testid="payment-pay"]').click();
    await page.locator('[data-testid="cp-widget-pay"]').click();
    await page.locator('[data-testid="subscription-status"][data-status="active"][data-usable="true"]').waitFor();
    await page.locator('[data-testid="payment-row"][data-status="paid"]').waitFor();
    expect(await page.locator('[data-testid="payment-row"]').count()).toBe(1);
    // Reopened, the screen's sync links the provider's recurring subscription.
    await page.reload();
    await page.locator('[data-testid="subscription-status"][data-status="active"]').waitFor();
    const first = stack.provider.subscriptions.find((s) => s.AccountId === user)!;

    await page.locator('[data-testid="subscription-cancel"]').click();
    await page.locator('[data-testid="confirm-dialog"]').waitFor();
    await screenshot(page, 'subscription-cancel-confirm');
    // Cancel in the dialog keeps it.
    await page.locator('[data-testid="confirm-cancel"]').click();
    await page.locator('[data-testid="confirm-dialog"]').waitFor({ state: 'detached' });
    expect(first.Status).toBe('Active');
    await page.locator('[data-testid="subscription-cancel"]').click();
    await page.locator('[data-testid="confirm-ok"]').click();
    await page.locator('[data-testid="subscription-status"][data-status="cancelled"][data-usable="true"]').waitFor();
    const api = (await (await fetch(new URL('/api/subscription', stack.base), { headers: { authorization: `Bearer ${await stack.token(user)}` } })).json()) as { data: { ends_at: string } };
    const until = new Intl.DateTimeFormat('ru-RU', { day: '2-digit', month: '2-digit', year: 'numeric' }).format(new Date(api.data.ends_at));
    expect(await page.locator('[data-testid="subscription-state"]').textContent()).toMatch(new RegExp(`^Подписка отменена, действует до ${until.replaceAll('.', '\\.')}`));
    expect(first.Status).toBe('Cancelled');
    await screenshot(page, 'subscription-cancelled');

    await page.locator('[data-testid="subscription-resume"]').click();
    await page.locator('[data-testid="subscription-status"][data-status="active"][data-usable="true"]').waitFor();
    await page.locator('[data-testid="subscription-cancel"]').waitFor();
    const active = stack.provider.subscriptions.filter((s) => s.AccountId === user && s.Status === 'Active');
    expect(active.map((s) => s.Id)).not.toContain(first.Id);
    expect(active).toHaveLength(1);
    expect(stack.provider.requests.some((r) => r.path === '/subscriptions/update')).toBe(false);
  });
});
