/**
 * Sources under a chat answer, in a real browser against the whole product (alerts included): the stand-in model
 * calls `list_alerts` and `get_asset`, then writes the rate from the tool result it got; the page lists both
 * sources under the stored answer, in the page's language, and the rate is the API's.
 */
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { screenshot } from '../support/browser.js';
import { type FreshPage, useBrowserStack } from '../support/browser-stack.js';
import type { WebStack } from '../support/web-stack.js';

let stack: WebStack;
let freshPage: FreshPage;
useBrowserStack('web_chat_sources', { tickers: ['SBER'] }, (s) => ({ stack, freshPage } = s));

async function signIn(page: Page, userId: string): Promise<void> {
  await page.goto(stack.base + '/sign-in');
  await page.locator('[data-testid="sign-in-user-id"]').fill(userId);
  await page.locator('[data-testid="sign-in-submit"]').click();
  await page.locator('[data-testid="signed-in-user"]').filter({ hasText: userId }).waitFor();
}

describe('chat sources', () => {
  it('lists the data the answer read under it (Источники), and the figure is the tool result', async () => {
    const asset = (await (await fetch(new URL('/api/public/assets/share/SBER', stack.base))).json()) as { data: { current_rate: number } };
    const page = await freshPage({ locale: 'ru-RU' });
    await signIn(page, `web-${randomUUID().slice(0, 8)}`);
    await page.locator('[data-testid="nav-chat"]').click();
    await page.locator('[data-testid="chat-new-support"]').click();
    await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/);

    let alerts: unknown;
    stack.model.queue.push(
      { toolCalls: [{ name: 'list_alerts', arguments: {} }, { name: 'get_asset', arguments: { type: 'share', ticker: 'SBER' } }] },
      (req) => {
        const [alertsResult, assetResult] = req.body.messages.filter((m) => m.role === 'tool').map((m) => JSON.parse(m.content ?? 'null') as unknown);
        alerts = alertsResult;
        return { chunks: ['Курс SBER: ', String((assetResult as { current_rate: number }).current_rate), '.'] };
      },
    );
    await page.locator('[data-testid="chat-input"]').fill('Какой курс у SBER?');
    await page.locator('[data-testid="chat-send"]').click();
    const answer = page.locator('[data-testid="chat-answer"][data-status="complete"]');
    await answer.locator('[data-testid="chat-sources"]').waitFor();

    // The alerts service answered as this user (none yet), and the rate is the API's.
    expect(alerts).toEqual([]);
    expect(await answer.locator('[data-testid="chat-answer-text"]').textContent()).toContain(`Курс SBER: ${asset.data.current_rate}.`);
    expect(await answer.locator('[data-testid="chat-sources"]').textContent()).toContain('Источники');
    expect(await answer.locator('[data-testid="chat-source"]').allTextContents()).toEqual(['Оповещения', 'SBER: курс']);
    await screenshot(page, 'chat-sources');

    // After a reload the stored answer keeps them.
    await page.reload();
    await page.locator('[data-testid="chat-answer"][data-status="complete"] [data-testid="chat-source"]').first().waitFor();
    expect(await page.locator('[data-testid="chat-source"]').count()).toBe(2);
  });
});
