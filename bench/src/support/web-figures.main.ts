/**
 * The browser half of `npm run bench -- web`, run from source by web.bench.ts (it needs the browser tests' stack and
 * browser, TypeScript outside the bench build): starts the product as the browser tests do (test/e2e/support/
 * web-stack.ts, in-process, fresh databases), opens it in the system Chromium and prints one JSON line of timings
 * (ms from navigation start, each page load in a fresh browser context, so with an empty cache):
 *   screener      - the screener's largest contentful paint (the table), after its rows are drawn;
 *   signIn        - the sign-in screen's largest contentful paint: the same server and bundle without data;
 *   portfolio     - a portfolio of `positions` open positions: the holdings table drawn with every row, and then a
 *                   sort header clicked and the table re-sorted (interactive);
 *   portfolioOne  - the same page and measure with one position.
 */
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, paintTimings } from '../../../test/e2e/support/browser.js';
import { startWebStack, type WebStack } from '../../../test/e2e/support/web-stack.js';

const runs = Number(process.env.WEB_BENCH_RUNS ?? 5);
const positions = Number(process.env.WEB_BENCH_POSITIONS ?? 200);

/** A portfolio with one buy of each of `count` demo shares; its id. */
async function seedPortfolio(stack: WebStack, user: string, count: number): Promise<number> {
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await stack.api(method, path, { user, body });
    if (r.status >= 300) throw new Error(`${method} ${path} answered ${r.status}: ${r.text}`);
    return r.body as { data: { id: number } };
  };
  const ids = await stack.screener.db.query<{ id: string }>(
    "select id::text from assets where type = 'share' and current_rate is not null order by id limit $1",
    [count],
  );
  if (ids.length < count) throw new Error(`the demo data has ${ids.length} priced shares, not ${count}`);
  const id = (await call('POST', '/api/portfolios', { name: `Bench ${count}`, currency_code: 'RUB' })).data.id;
  for (const [i, r] of ids.entries()) {
    await call('POST', `/api/portfolios/${id}/deals`, {
      type: 'buy',
      assetable: { type: 'share', id: Number(r.id) },
      quantity: 1 + (i % 17),
      price: 100 + i,
      commission: 0,
      date: '2024-01-10',
    });
  }
  return id;
}

/** Largest contentful paint of a page once `ready` is on screen, in a fresh context. */
async function lcpOf(browser: Browser, url: string, ready: string): Promise<number> {
  const context = await browser.newContext({ locale: 'ru-RU', viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    await page.goto(url);
    await page.locator(ready).first().waitFor();
    const { lcp } = await paintTimings(page);
    if (lcp === undefined) throw new Error(`${url}: no largest-contentful-paint entry`);
    return lcp;
  } finally {
    await context.close();
  }
}

/**
 * Opens the portfolio page signed in (the session in localStorage, as the sign-in screen leaves it) and measures in
 * the page: when the holdings table has all `rows` rows, and when a click on its "gain" header has re-sorted it
 * (its aria-sort set): the first moment the page both shows the positions and answers a control.
 */
async function interactiveOf(browser: Browser, base: string, session: object, portfolioId: number, rows: number): Promise<{ drawn: number; interactive: number }> {
  const context = await browser.newContext({
    locale: 'ru-RU',
    viewport: { width: 1280, height: 800 },
    storageState: { cookies: [], origins: [{ origin: base, localStorage: [{ name: 'invest.session', value: JSON.stringify(session) }] }] },
  });
  try {
    const page: Page = await context.newPage();
    // Runs before the app's script: watches the DOM from the first byte, clicks as soon as every row is there.
    await page.addInitScript(`window.__figures = new Promise((resolve) => {
      const rows = ${rows};
      let drawn = null;
      const header = () => document.querySelector('[data-testid="holdings-sort-gain"]');
      const check = () => {
        if (drawn === null) {
          if (document.querySelectorAll('[data-testid="holding-row"]').length < rows || !header()) return;
          drawn = performance.now();
          header().click();
        }
        if (header()?.closest('th')?.getAttribute('aria-sort')) {
          observer.disconnect();
          resolve({ drawn, interactive: performance.now() });
        }
      };
      const observer = new MutationObserver(check);
      observer.observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-sort'] });
    })`);
    await page.goto(`${base}/portfolios/${portfolioId}`);
    return (await page.waitForFunction('window.__figures', undefined, { timeout: 60_000 }).then((h) => h.jsonValue())) as { drawn: number; interactive: number };
  } finally {
    await context.close();
  }
}

const stack = await startWebStack(`bench_web_${randomUUID().slice(0, 6)}`, { tickers: ['SBER'] });
let browser: Browser | undefined;
try {
  const user = `bench-web-${randomUUID().slice(0, 8)}`;
  const [big, one] = [await seedPortfolio(stack, user, positions), await seedPortfolio(stack, user, 1)];
  const session = { token: await stack.token(user), userId: user, expiresAt: Date.now() + 3_600_000 };
  browser = await launchBrowser();
  const out = { positions, runs, screener: [] as number[], signIn: [] as number[], portfolio: [] as { drawn: number; interactive: number }[], portfolioOne: [] as { drawn: number; interactive: number }[] };
  // One warm-up of each (the server's first answers fill its caches, as any visitor after the first finds them).
  await lcpOf(browser, `${stack.base}/`, '[data-testid="screener-row"]');
  await interactiveOf(browser, stack.base, session, big, positions);
  // Interleaved, so a burst of load on the machine falls on both a figure and its baseline.
  for (let i = 0; i < runs; i++) {
    out.screener.push(await lcpOf(browser, `${stack.base}/`, '[data-testid="screener-row"]'));
    out.signIn.push(await lcpOf(browser, `${stack.base}/sign-in`, '[data-testid="sign-in-submit"]'));
    out.portfolio.push(await interactiveOf(browser, stack.base, session, big, positions));
    out.portfolioOne.push(await interactiveOf(browser, stack.base, session, one, 1));
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
} finally {
  await browser?.close();
  await stack.close();
}
