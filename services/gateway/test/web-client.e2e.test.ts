import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstContentfulPaint, launchBrowser, recordScripts, screenshot } from './support/browser.js';
import { startWebStack, type WebStack } from './support/web-stack.js';

let stack: WebStack;
let browser: Browser;

beforeAll(async () => {
  const t0 = Date.now();
  [stack, browser] = await Promise.all([startWebStack('web_e2e', { tickers: ['SBER', 'GAZP'] }), launchBrowser()]);
  console.log('ready in', Date.now() - t0);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

describe('infra', () => {
  it('opens a page', async () => {
    const page = await browser.newPage();
    const scripts = recordScripts(page);
    await page.goto(`${stack.base}/api/docs`);
    console.log(await firstContentfulPaint(page), await scripts.settled());
    await screenshot(page, 'docs');
    expect(1).toBe(1);
  });
});
