/**
 * The web client's input and session edges in a browser (system Chromium through playwright-core) against the
 * whole product in-process (support/web-stack.ts), in the pattern of web-browser.e2e.test.ts: money input kept
 * exact, number input read by the locale, the sign-in `next` redirect, the inbox counter with the live stream,
 * user- and model-controlled text shown as text (no HTML/script injection), and another user signing in.
 */
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { type FreshPage, useBrowserStack } from '../support/browser-stack.js';
import type { WebStack } from '../support/web-stack.js';

let stack: WebStack;
let freshPage: FreshPage;
useBrowserStack('web_input', { tickers: ['SBER', 'GAZP'] }, (s) => ({ stack, freshPage } = s));

async function apiText(path: string, user: string): Promise<string> {
  const res = await fetch(new URL(path, stack.base), { headers: { 'accept-language': 'en', authorization: `Bearer ${await stack.token(user)}` } });
  expect(res.status, path).toBe(200);
  return res.text();
}

const newUser = () => `webinput-${randomUUID().slice(0, 8)}`;

async function signIn(page: Page, userId: string): Promise<void> {
  await page.goto(stack.base + '/sign-in');
  await page.locator('[data-testid="sign-in-form"]').waitFor();
  await page.locator('[data-testid="sign-in-user-id"]').fill(userId);
  await page.locator('[data-testid="sign-in-submit"]').click();
  await page.locator('[data-testid="signed-in-user"]').filter({ hasText: userId }).waitFor();
}

/** Signs in, creates a portfolio through the page and opens it; its id. */
async function openNewPortfolio(page: Page, user: string, name: string): Promise<number> {
  await signIn(page, user);
  await page.locator('[data-testid="nav-portfolios"]').click();
  await page.locator('[data-testid="portfolio-name"]').fill(name);
  await page.locator('[data-testid="portfolio-submit"]').click();
  const item = page.locator('[data-testid="portfolio-item"]').filter({ hasText: name });
  await item.waitFor();
  const id = Number(await item.getAttribute('data-portfolio-id'));
  await item.locator('[data-testid="portfolio-link"]').click();
  await page.locator('[data-testid="deal-form"]').waitFor();
  return id;
}

/** Fills the deal form for SBER with the given texts and submits it. */
async function submitSberDeal(page: Page, quantity: string, price: string): Promise<void> {
  await page.locator('[data-testid="deal-asset-search"]').fill('SBER');
  await page.locator('[data-testid="deal-asset-option"][data-ticker="SBER"]').click();
  await page.locator('[data-testid="deal-quantity"]').fill(quantity);
  await page.locator('[data-testid="deal-price"]').fill(price);
  await page.locator('[data-testid="deal-submit"]').click();
}

/** submitSberDeal, then waits for the deal to be listed. */
async function addSberDeal(page: Page, quantity: string, price: string): Promise<void> {
  await submitSberDeal(page, quantity, price);
  await page.locator('[data-testid="deal-item"]').first().waitFor();
}

type DealRow = { quantity: number; price: number };
const dealsOf = async (id: number, user: string) => (JSON.parse(await apiText(`/api/portfolios/${id}/deals`, user)) as { data: DealRow[] }).data;

describe('money input is sent exactly (docs/decisions/0015-exact-decimals.md)', () => {
  it('a quantity with 8 decimal places typed into the deal form is stored with every digit', async () => {
    const page = await freshPage();
    const user = newUser();
    const id = await openNewPortfolio(page, user, 'Exact decimals');
    // Valid under the decimal rule (8 places, below 1e15); 18 significant digits, more than a double holds.
    await addSberDeal(page, '1234567890.12345678', '1');
    const raw = await apiText(`/api/portfolios/${id}/deals`, user);
    // The gateway answers decimals with exactly their digits: what was stored is what the page sent.
    expect(raw).toContain('"quantity":1234567890.12345678');
  });

  it('a price of 999999999999999.99 (within the 1e15 bound) is not stored as 1000000000000000', async () => {
    const page = await freshPage();
    const user = newUser();
    const id = await openNewPortfolio(page, user, 'Exact price');
    await addSberDeal(page, '1', '999999999999999.99');
    const raw = await apiText(`/api/portfolios/${id}/deals`, user);
    expect(raw).toContain('"price":999999999999999.99');
  });
});

describe('deal form and deal list', () => {
  it('the date starts at today in the browser\'s zone and again after a save; a typed price keeps its digits when the asset is picked', async () => {
    // UTC+14: its date is not the UTC date for most of the day, so a form that used the UTC date fails here.
    const timeZone = 'Pacific/Kiritimati';
    const page = await freshPage({ timeZone });
    const user = newUser();
    const id = await openNewPortfolio(page, user, 'Deal form');
    const today = () => new Intl.DateTimeFormat('en-CA', { timeZone }).format(new Date());
    expect(await page.locator('[data-testid="deal-date"]').inputValue()).toBe(today());
    // Typed before the asset is picked: the picked asset's rate does not write over it.
    await page.locator('[data-testid="deal-price"]').fill('162.55');
    await page.locator('[data-testid="deal-asset-search"]').fill('SBER');
    await page.locator('[data-testid="deal-asset-option"][data-ticker="SBER"]').click();
    await page.locator('[data-testid="deal-asset-picked"]').waitFor();
    expect(await page.locator('[data-testid="deal-price"]').inputValue()).toBe('162.55');
    await page.locator('[data-testid="deal-date"]').fill('2024-03-01');
    await page.locator('[data-testid="deal-quantity"]').fill('2');
    await page.locator('[data-testid="deal-submit"]').click();
    await page.locator('[data-testid="deal-item"]').waitFor();
    expect((await dealsOf(id, user)).map((d) => [d.quantity, d.price])).toEqual([[2, 162.55]]);
    // Reset for the next deal: today again, and the price comes with the next asset.
    expect(await page.locator('[data-testid="deal-date"]').inputValue()).toBe(today());
    expect(await page.locator('[data-testid="deal-price"]').inputValue()).toBe('');
  });

  it('links the deal\'s ticker to its asset page; deleting a deal or the portfolio asks first, Cancel keeps it', async () => {
    const page = await freshPage();
    const user = newUser();
    const id = await openNewPortfolio(page, user, 'Deals to delete');
    await addSberDeal(page, '2', '162.55');
    const deal = page.locator('[data-testid="deal-item"]');
    expect(await deal.locator('a[data-testid="deal-ticker"]').getAttribute('href')).toBe('/assets/share/SBER');

    const confirm = page.locator('[data-testid="confirm-dialog"]');
    const message = confirm.locator('[data-testid="confirm-message"]');
    // The portfolio: named, with what goes with it.
    await page.locator('[data-testid="portfolio-delete"]').click();
    await expect.poll(() => message.innerText()).toBe('Delete the portfolio "Deals to delete"? Its deals (1) are deleted too, and alerts on it are switched off.');
    await page.locator('[data-testid="confirm-cancel"]').click();
    await confirm.waitFor({ state: 'detached' });
    expect(await page.evaluate("document.activeElement?.getAttribute('data-testid') ?? null")).toBe('portfolio-delete');

    // The deal: named by type, ticker, quantity, price and date.
    await deal.locator('[data-testid="deal-delete"]').click();
    expect(await message.innerText()).toMatch(/^Delete the deal "buy SBER, 2 × 162\.55, .+"\? The portfolio's holdings and statistics are recalculated\.$/);
    await page.locator('[data-testid="confirm-cancel"]').click();
    await confirm.waitFor({ state: 'detached' });
    expect(await dealsOf(id, user)).toHaveLength(1);
    await deal.locator('[data-testid="deal-delete"]').click();
    await page.locator('[data-testid="confirm-ok"]').click();
    await deal.waitFor({ state: 'detached' });
    expect(await dealsOf(id, user)).toEqual([]);

    await page.locator('[data-testid="portfolio-delete"]').click();
    await expect.poll(() => message.innerText()).toBe('Delete the portfolio "Deals to delete"? Alerts on it are switched off.');
    await page.locator('[data-testid="confirm-ok"]').click();
    await page.waitForURL(/\/portfolios$/);
    await page.locator('[data-testid="portfolio-list"]').filter({ hasText: 'No portfolios yet' }).waitFor();
    expect(JSON.parse(await apiText('/api/portfolios', user)).data).toEqual([]);
  });
});

describe('number input follows the locale', () => {
  it('in English, "1,000" in the quantity field is a thousand, not 1', async () => {
    const page = await freshPage({ locale: 'en-US' });
    const user = newUser();
    const id = await openNewPortfolio(page, user, 'Thousand');
    await addSberDeal(page, '1,000', '250');
    expect((await dealsOf(id, user)).map((d) => [d.quantity, d.price])).toEqual([[1000, 250]]);
  });

  it('in English, "1,5" is refused beside the field and nothing is sent', async () => {
    const page = await freshPage({ locale: 'en-US' });
    const user = newUser();
    const id = await openNewPortfolio(page, user, 'Ambiguous');
    const posts: string[] = [];
    page.on('request', (r) => void (r.method() === 'POST' && r.url().includes('/deals') && posts.push(r.url())));
    await submitSberDeal(page, '1,5', '250');
    const message = page.locator('[data-testid="field-error-quantity"]');
    await message.waitFor();
    expect(await message.textContent()).toContain('1,000');
    expect(posts).toEqual([]);
    expect(await dealsOf(id, user)).toEqual([]);
  });

  it('in Russian, a decimal comma and space-grouped digits are read as written', async () => {
    const page = await freshPage({ locale: 'ru-RU' });
    const user = newUser();
    const id = await openNewPortfolio(page, user, 'Запятая');
    await addSberDeal(page, '1 000,5', '250,25');
    expect((await dealsOf(id, user)).map((d) => [d.quantity, d.price])).toEqual([[1000.5, 250.25]]);
  });
});

describe('sign-in `next`', () => {
  it('a `next` that is not a path of this site falls back to /portfolios instead of failing the sign-in', async () => {
    const page = await freshPage();
    const user = newUser();
    // nextPath() accepts it (starts with "/", not "//"); the browser reads "/\evil.example" as "//evil.example".
    await page.goto(stack.base + '/sign-in?next=' + encodeURIComponent('/\\evil.example/x'));
    await page.locator('[data-testid="sign-in-form"]').waitFor();
    await page.locator('[data-testid="sign-in-user-id"]').fill(user);
    await page.locator('[data-testid="sign-in-submit"]').click();
    await page.locator('[data-testid="signed-in-user"]').filter({ hasText: user }).waitFor();
    // Never left the origin (pushState refuses another origin)...
    expect(new URL(page.url()).origin).toBe(stack.base);
    // ...but the page must go on to a screen of this site, not stay on the form with an error.
    await expect.poll(() => new URL(page.url()).pathname, { timeout: 5000 }).toBe('/portfolios');
    expect(await page.locator('[data-testid="form-error"]').count()).toBe(0);
  });
});

describe('inbox counter with the live stream', () => {
  it('a firing the inbox already lists, delivered again by the stream, does not count twice as unread', async () => {
    const page = await freshPage();
    const user = newUser();
    const firing = {
      id: 9001,
      notification_id: 77,
      type: 'price-target',
      title: 'SBER: price reached 300',
      body: 'SBER is now 301',
      path: '/assets/share/1',
      assets: [],
      explanation: null,
      fired_at: new Date().toISOString(),
      read_at: null,
    };
    // The inbox read happens after the firing committed; the stream (opened before it, `after` = the previous
    // newest id) then delivers the same firing: the race between the screen's first read and the live push.
    let releaseStream!: () => void;
    const streamGate = new Promise<void>((r) => (releaseStream = r));
    await page.route(/\/api\/notification-events\/stream/, async (route) => {
      await streamGate;
      await route.fulfill({ status: 200, headers: { 'content-type': 'text/event-stream' }, body: `retry: 600000\n: connected\n\nid: ${firing.id}\nevent: notification\ndata: ${JSON.stringify(firing)}\n\n` });
    });
    await page.route(/\/api\/notification-events\?/, (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ data: [firing], links: {}, meta: { current_page: 1, per_page: 50, total: 1, last_page: 1, unread_count: 1, last_id: firing.id } }) }),
    );
    await signIn(page, user);
    await page.locator('[data-testid="nav-notifications"]').click();
    await page.locator('[data-testid="inbox-item"]').first().waitFor();
    await expect.poll(() => page.locator('[data-testid="inbox-unread"]').textContent()).toBe('1');
    releaseStream();
    await page.locator('[data-testid="toast"]').filter({ hasText: firing.body }).waitFor();
    expect(await page.locator('[data-testid="inbox-item"]').count()).toBe(1);
    await page.waitForTimeout(300);
    expect(await page.locator('[data-testid="inbox-unread"]').textContent()).toBe('1');
  });
});

describe('user- and model-controlled text is shown as text', () => {
  const PAYLOAD = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>';

  it('portfolio names, watchlist names, firings and chat answers render no markup and run no script', async () => {
    const page = await freshPage();
    const user = newUser();
    await openNewPortfolio(page, user, PAYLOAD);
    // The deal form shows before the portfolio's title has loaded ("…"): wait for the title itself.
    await expect.poll(() => page.locator('[data-testid="portfolio-title"]').textContent(), { timeout: 10_000 }).toBe(PAYLOAD);
    await page.locator('[data-testid="portfolio-create-alert"]').click();
    await page.locator('[data-testid="alert-dialog"]').waitFor();
    await page.keyboard.press('Escape');

    await page.locator('[data-testid="nav-watchlists"]').click();
    await page.locator('[data-testid="watchlist-name"]').fill(PAYLOAD);
    await page.locator('[data-testid="watchlist-create"]').click();
    await page.locator('[data-testid="watchlist-item"]').filter({ hasText: 'onerror' }).waitFor();

    // A model answer with markdown links (javascript: URL) and HTML.
    stack.model.queue.push({ chunks: ['See [docs](javascript:window.__xss=3) ', PAYLOAD, ' <a href="javascript:window.__xss=4">x</a>'] });
    await page.locator('[data-testid="nav-chat"]').click();
    await page.locator('[data-testid="chat-new-support"]').click();
    await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/);
    await page.locator('[data-testid="chat-input"]').fill('hi');
    await page.locator('[data-testid="chat-send"]').click();
    const answer = page.locator('[data-testid="chat-answer"][data-status="complete"]');
    await answer.filter({ hasText: 'onerror' }).waitFor({ timeout: 15_000 });
    // Markdown renders (the link stays a link), but raw HTML shows as text and no link runs script.
    expect(await answer.locator('img, script').count()).toBe(0);
    expect(await answer.locator('a').count()).toBe(1);
    expect(await answer.locator('a').evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''))).toEqual(['']);
    await expect.poll(() => answer.textContent()).toContain('<a href="javascript:window.__xss=4">x</a>');
    await page.waitForTimeout(300);
    expect(await page.evaluate('window.__xss ?? null')).toBeNull();
    expect(await page.locator('img[src="x"], main script').count()).toBe(0);
  });
});

describe('another user signing in in a second tab', () => {
  it('does not leave the first user\'s data on screen under the second user\'s name', async () => {
    const first = await freshPage();
    const [u1, u2] = [newUser(), newUser()];
    await signIn(first, u1);
    await first.locator('[data-testid="nav-portfolios"]').click();
    await first.locator('[data-testid="portfolio-name"]').fill(`Private of ${u1}`);
    await first.locator('[data-testid="portfolio-submit"]').click();
    await first.locator('[data-testid="portfolio-item"]').filter({ hasText: `Private of ${u1}` }).waitFor();
    // Same browser profile (shared localStorage), a second tab signs in as someone else.
    const second = await first.context().newPage();
    await signIn(second, u2);
    // The first tab follows the session change (the storage event)...
    await first.locator('[data-testid="signed-in-user"]').filter({ hasText: u2 }).waitFor();
    await first.waitForTimeout(500);
    // ...and shows u2's (empty) list, not u1's portfolio under u2's name.
    await first.locator('[data-testid="portfolio-list"]').filter({ hasText: 'No portfolios yet' }).waitFor();
    expect(await first.locator('[data-testid="portfolio-item"]').filter({ hasText: `Private of ${u1}` }).count()).toBe(0);
  });
});
