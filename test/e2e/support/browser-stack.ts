/**
 * One whole product (support/web-stack.ts) and one browser for a browser test file, and a fresh browser context
 * (its own storage) for each page a test opens, closed after the test.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { launchBrowser } from './browser.js';
import { startWebStack, type WebStack } from './web-stack.js';

/** A page in a fresh context, English, desktop-sized and in the machine's time zone unless told. */
export type FreshPage = (opts?: { width?: number; height?: number; locale?: string; timeZone?: string }) => Promise<Page>;

/** Registers the file's hooks; `ready` gets the stack and `freshPage` once both are up. */
export function useBrowserStack(name: string, opts: Parameters<typeof startWebStack>[1], ready: (s: { stack: WebStack; freshPage: FreshPage }) => void): void {
  let stack: WebStack | undefined;
  let browser: Browser | undefined;
  let contexts: BrowserContext[] = [];
  const freshPage: FreshPage = async (o = {}) => {
    const context = await browser!.newContext({ locale: o.locale ?? 'en-US', viewport: { width: o.width ?? 1280, height: o.height ?? 800 }, ...(o.timeZone ? { timezoneId: o.timeZone } : {}) });
    contexts.push(context);
    const page = await context.newPage();
    // Generous: two test files run at once on two cores, and a whole product and Chromium each here.
    page.setDefaultTimeout(20_000);
    return page;
  };
  beforeAll(async () => {
    [stack, browser] = await Promise.all([startWebStack(name, opts), launchBrowser()]);
    ready({ stack, freshPage });
  }, 300_000);
  afterEach(async () => {
    await Promise.all(contexts.map((c) => c.close()));
    contexts = [];
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });
}
