/**
 * The notification screens of issue 32 in a real browser (support/browser-stack.ts): the price-target dialog
 * that asks for the direction, the unread count in the navigation (live from the event stream, down on
 * mark-read), one toast per move, and the notification settings screen against the delivery service, with Telegram
 * linked through the Bot API stand-in's page. Each screen leaves screenshots at desktop and phone width in
 * .runtime/screenshots/.
 */
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { eventually } from '@invest/platform/testing/index';
import { type FakeTelegram, startFakeTelegram } from '@invest/delivery/testing/fake-telegram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot } from '../support/browser.js';
import { type FreshPage, useBrowserStack } from '../support/browser-stack.js';
import type { WebStack } from '../support/web-stack.js';

const BOT_TOKEN = '777000222:web-e2e-bot-token';
const WEBHOOK_SECRET = 'web-e2e-telegram-webhook-secret-0123456789';
let telegram: FakeTelegram;
// The Bot API stand-in first: the delivery service sets its webhook when it starts.
beforeAll(async () => {
  telegram = await startFakeTelegram({ token: BOT_TOKEN, botUsername: 'web_e2e_invest_bot' });
});
afterAll(async () => {
  await telegram?.close();
});

let stack: WebStack;
let freshPage: FreshPage;
useBrowserStack(
  'web_notif',
  {
    tickers: ['SBER', 'GAZP', 'LKOH'],
    gateway: { telegramWebhookSecret: WEBHOOK_SECRET },
    delivery: () => ({ telegram: { apiUrl: telegram.url, botToken: BOT_TOKEN, webhookSecret: WEBHOOK_SECRET, timeoutMs: 3000 }, telegramPacing: { perChatMs: 20 }, groupWindowMs: 300 }),
  },
  (s) => ({ stack, freshPage } = s),
);

const PHONE = { width: 390, height: 844 };
const newUser = () => `webn-${randomUUID().slice(0, 8)}`;

/** Signs in through the development form, as a person would. */
async function signIn(page: Page, userId: string): Promise<void> {
  await page.goto(stack.base + '/sign-in');
  await page.locator('[data-testid="sign-in-user-id"]').fill(userId);
  await page.locator('[data-testid="sign-in-submit"]').click();
  await page.locator('[data-testid="signed-in-user"]').filter({ hasText: userId }).waitFor();
}

/** The screener's current rate of a share, as the dialog gets it. */
async function screenerRate(ticker: string): Promise<number> {
  const res = await stack.api('GET', `/api/public/shares?search=${ticker}`);
  const row = (res.body.data as { asset: string; current_rate: number }[]).find((r) => r.asset === ticker);
  expect(row, ticker).toBeDefined();
  return row!.current_rate;
}

/** The page does not scroll sideways at its width. */
async function expectNoSidewaysScroll(page: Page): Promise<void> {
  expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBeLessThanOrEqual(0);
}

describe('price-target dialog: above or below, with the distance from the current price', () => {
  it('starts empty, shows the distance as one types, refuses a target already reached in the chosen direction, sends the direction', async () => {
    const page = await freshPage({ locale: 'ru-RU' });
    const user = newUser();
    await signIn(page, user);
    await page.goto(stack.base + '/?search=SBER');
    await page.locator('[data-testid="screener-row"][data-ticker="SBER"] [data-testid="row-create-alert"]').click();
    const rate = await screenerRate('SBER');
    const target = page.locator('[data-testid="alert-target-price"]');
    // Never the current price as the target.
    expect(await target.inputValue()).toBe('');
    expect(await page.locator('[data-testid="alert-direction-above"]').textContent()).toBe('Выше');
    expect(await page.locator('[data-testid="alert-direction-below"]').textContent()).toBe('Ниже');

    // 5 % under the rate: the distance says so as it is typed, and the direction follows it.
    const below = (Math.round(rate * 95) / 100).toFixed(2);
    await target.fill(below.replace('.', ','));
    const distance = page.locator('[data-testid="alert-distance"]');
    await expect.poll(async () => Number(await distance.getAttribute('data-value'))).toBeCloseTo((Number(below) / rate - 1) * 100, 3);
    expect(await distance.textContent()).toMatch(/^-(5,0\d|4,9\d) % от текущей$/);
    await page.locator('[data-testid="alert-direction-below"][aria-checked="true"]').waitFor();
    await screenshot(page, 'alert-direction-ru');

    // Picked "above" for a price under the rate: already reached, said beside the field in Russian; nothing sent.
    await page.locator('[data-testid="alert-direction-above"]').click();
    await page.locator('[data-testid="alert-distance"][data-reached="true"]').waitFor();
    await page.locator('[data-testid="alert-submit"]').click();
    const fieldError = page.locator('[data-testid="field-error-target_price"]');
    await fieldError.waitFor();
    expect(await fieldError.textContent()).toMatch(/^Цель уже достигнута: цена сейчас .+\. Для «Выше» укажите цену больше текущей\.$/);
    await screenshot(page, 'alert-direction-reached-ru');
    expect((await stack.api('GET', '/api/notifications', { user })).body.data).toEqual([]);

    // "Below" it is: created with <=.
    await page.locator('[data-testid="alert-direction-below"]').click();
    await page.locator('[data-testid="alert-submit"]').click();
    await page.locator('[data-testid="alert-dialog"]').waitFor({ state: 'detached' });
    const alerts = (await stack.api('GET', '/api/notifications', { user })).body.data as { condition: { operator: string; value: number } }[];
    expect(alerts.map((a) => [a.condition.operator, a.condition.value])).toEqual([['<=', Number(below)]]);
  });

  it('at phone width in English: above by default for a higher target, distance with a plus', async () => {
    const page = await freshPage({ ...PHONE, locale: 'en-US' });
    const user = newUser();
    await signIn(page, user);
    await page.goto(stack.base + '/?search=GAZP');
    await page.locator('[data-testid="screener-row"][data-ticker="GAZP"] [data-testid="row-create-alert"]').click();
    const rate = await screenerRate('GAZP');
    const above = (Math.round(rate * 110) / 100).toFixed(2);
    await page.locator('[data-testid="alert-target-price"]').fill(above);
    const distance = page.locator('[data-testid="alert-distance"]');
    await expect.poll(() => distance.textContent()).toMatch(/^\+(9\.9\d|10\.0\d)% from now$/);
    await page.locator('[data-testid="alert-direction-above"][aria-checked="true"]').waitFor();
    await expectNoSidewaysScroll(page);
    await screenshot(page, 'alert-direction-phone');
    await page.locator('[data-testid="alert-submit"]').click();
    await page.locator('[data-testid="alert-dialog"]').waitFor({ state: 'detached' });
    const alerts = (await stack.api('GET', '/api/notifications', { user })).body.data as { condition: { operator: string } }[];
    expect(alerts.map((a) => a.condition.operator)).toEqual(['>=']);
  });
});

/**
 * The rate an alert's "already reached" check compares with: the alerts service's latest. The screener's public
 * list is cached and may lag the rates the tests publish (the higher of the two, should the alerts have none yet).
 */
async function currentRate(ticker: string): Promise<number> {
  const [latest] = await stack.alerts.db.query<{ rate: string | null }>("select rate from latest_rates where asset_type = 'share' and asset_id = $1", [stack.share(ticker).id]);
  return Math.max(await screenerRate(ticker), Number(latest?.rate ?? 0));
}

/** A price-target of `user` on `ticker` waiting for a rise to `factor` times the current rate; its target. */
async function riseAlert(user: string, ticker: string, factor: number): Promise<number> {
  const target = Math.round((await currentRate(ticker)) * factor * 100) / 100;
  const created = await stack.api('POST', '/api/price-alert', { user, body: { target_price: target, assetable: stack.share(ticker), direction: 'above' } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return target;
}

/** The unread count of the inbox, as the API says it. */
async function apiUnread(user: string): Promise<number> {
  return (await stack.api('GET', '/api/notification-events?per_page=1', { user })).body.meta.unread_count;
}

describe('unread count in the navigation and one toast per move', () => {
  it('counts up live on firings, shows the firings of one batch as one toast, and goes away on mark-read', async () => {
    const page = await freshPage({ locale: 'ru-RU' });
    const user = newUser();
    await signIn(page, user);
    await page.locator('html[data-notification-stream="connected"]').waitFor();
    const badge = page.locator('[data-testid="nav-unread"]');
    expect(await badge.count()).toBe(0);

    // Three alerts on three shares; one rate batch moves all three past their targets, LKOH furthest.
    const targets = { SBER: await riseAlert(user, 'SBER', 1.01), GAZP: await riseAlert(user, 'GAZP', 1.02), LKOH: await riseAlert(user, 'LKOH', 1.03) };
    await page.evaluate('window.__sameDocument = true');
    await stack.publishRates([
      { ticker: 'SBER', rate: Math.round(targets.SBER * 101) / 100, change: 1.5, asOf: new Date() },
      { ticker: 'GAZP', rate: Math.round(targets.GAZP * 101) / 100, change: 2.5, asOf: new Date() },
      { ticker: 'LKOH', rate: Math.round(targets.LKOH * 101) / 100, change: 5.2, asOf: new Date() },
    ]);
    await page.locator('[data-testid="nav-unread"][data-count="3"]').waitFor({ timeout: 15_000 });
    expect(await badge.textContent()).toBe('3');
    expect(await apiUnread(user)).toBe(3);
    // One toast for the move, naming the furthest mover, with the three firings under it.
    const toast = page.locator('[data-testid="toast"][data-count="3"]');
    await toast.waitFor();
    expect(await toast.locator('[data-testid="toast-title"]').textContent()).toBe('LKOH +5,2 %: 3 уведомления');
    const inbox = (await stack.api('GET', '/api/notification-events', { user, headers: { 'accept-language': 'ru' } })).body.data as { body: string }[];
    expect((await toast.locator('[data-testid="toast-item"]').allTextContents()).sort()).toEqual(inbox.map((f) => f.body).sort());
    expect(await page.locator('[data-testid="toast"]').count()).toBe(1);
    expect(await page.evaluate('window.__sameDocument')).toBe(true);
    await screenshot(page, 'unread-badge-toast');

    // A later firing counts one more.
    await riseAlert(user, 'SBER', 1.05);
    await stack.publishRates([{ ticker: 'SBER', rate: Math.round(targets.SBER * 110) / 100, change: 9, asOf: new Date() }]);
    await page.locator('[data-testid="nav-unread"][data-count="4"]').waitFor({ timeout: 15_000 });

    // Mark-read on the inbox screen: the badge goes.
    await page.locator('[data-testid="nav-notifications"]').click();
    await page.locator('[data-testid="inbox-unread"]').filter({ hasText: '4' }).waitFor();
    // Each firing links the asset it is about to its page.
    const assetLinks = await page.locator('[data-testid="inbox-item"] a[data-testid="inbox-asset"]').evaluateAll((els) => els.map((e) => e.getAttribute('href')));
    expect(assetLinks.sort()).toEqual(['/assets/share/GAZP', '/assets/share/LKOH', '/assets/share/SBER', '/assets/share/SBER']);
    await page.locator('[data-testid="inbox-mark-all-read"]').click();
    await badge.waitFor({ state: 'detached' });
    expect(await apiUnread(user)).toBe(0);
    // And stays gone after a reload (the count is the server's).
    await page.reload();
    await page.locator('html[data-notification-stream="connected"]').waitFor();
    await page.locator('[data-testid="inbox-unread"]').filter({ hasText: '0' }).waitFor();
    expect(await badge.count()).toBe(0);
  });

  it('at phone width: the badge in the navigation and the grouped toast fit the screen', async () => {
    const page = await freshPage({ ...PHONE, locale: 'en-US' });
    const user = newUser();
    await signIn(page, user);
    await page.locator('html[data-notification-stream="connected"]').waitFor();
    const a = await riseAlert(user, 'GAZP', 1.04);
    const b = await riseAlert(user, 'GAZP', 1.05);
    await stack.publishRates([{ ticker: 'GAZP', rate: Math.round(Math.max(a, b) * 101) / 100, change: 6.1, asOf: new Date() }]);
    await page.locator('[data-testid="nav-unread"][data-count="2"]').waitFor({ timeout: 15_000 });
    const toast = page.locator('[data-testid="toast"][data-count="2"]');
    await toast.waitFor();
    expect(await toast.locator('[data-testid="toast-title"]').textContent()).toBe('GAZP +6.1%: 2 notifications');
    await expectNoSidewaysScroll(page);
    await screenshot(page, 'unread-badge-toast-phone');
  });
});

/** The `data-testid` of the focused element (null: none, or the page itself). */
const focusedTestId = (page: Page) => page.evaluate("document.activeElement?.getAttribute('data-testid') ?? null") as Promise<string | null>;

/** Presses Tab `times` times, then Shift+Tab as often: the focus never leaves the dialog `testId`. */
async function expectTabStaysIn(page: Page, testId: string, times: number): Promise<void> {
  const inside = `!!document.activeElement?.closest('[data-testid="${testId}"]')`;
  for (const key of ['Tab', 'Shift+Tab']) {
    for (let i = 0; i < times; i++) {
      await page.keyboard.press(key);
      expect(await page.evaluate(inside), `${key} #${i + 1} stays in ${testId}`).toBe(true);
    }
  }
}

describe('alerts list: tickers link to their page, a delete asks first, dialogs keep the focus and give it back', () => {
  it('Tab stays in the dialog and Escape returns the focus to its button; Cancel and Escape keep the alert, Delete deletes it', async () => {
    const page = await freshPage({ locale: 'ru-RU' });
    const user = newUser();
    await signIn(page, user);
    await riseAlert(user, 'SBER', 1.5);
    const [alert] = (await stack.api('GET', '/api/notifications', { user })).body.data as { id: number }[];
    await page.locator('[data-testid="nav-notifications"]').click();
    const item = page.locator(`[data-testid="alert-item"][data-alert-id="${alert!.id}"]`);
    expect(await item.locator('a[data-testid="alert-ticker"]').getAttribute('href')).toBe('/assets/share/SBER');

    // The new-alert dialog (9 controls): more Tabs than controls, each way, and the focus is still inside.
    await page.locator('[data-testid="alert-new"]').focus();
    await page.keyboard.press('Enter');
    const dialog = page.locator('[data-testid="alert-dialog"]');
    await dialog.waitFor();
    expect(await focusedTestId(page)).toBe('alert-asset-search');
    await expectTabStaysIn(page, 'alert-dialog', 12);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await focusedTestId(page)).toBe('alert-new');

    // Deleting asks first, naming the alert; the first focus is on Cancel.
    await item.locator('[data-testid="alert-delete"]').click();
    const confirm = page.locator('[data-testid="confirm-dialog"]');
    await confirm.waitFor();
    expect(await confirm.getAttribute('role')).toBe('alertdialog');
    expect(await confirm.locator('[data-testid="confirm-message"]').innerText()).toMatch(/^Удалить уведомление «SBER» \(цена ≥ [^)]+\)\?$/);
    expect(await focusedTestId(page)).toBe('confirm-cancel');
    await expectTabStaysIn(page, 'confirm-dialog', 3);
    await screenshot(page, 'confirm-alert-delete-ru');
    // In the dark theme too (the dialog's colours are the theme's variables).
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'confirm-alert-delete-dark-ru');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.locator('[data-testid="confirm-cancel"]').click();
    await confirm.waitFor({ state: 'detached' });
    expect(await focusedTestId(page)).toBe('alert-delete');
    // Escape is a cancel too (the focus is back on the delete button: Enter opens the question again).
    await page.keyboard.press('Enter');
    await confirm.waitFor();
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached' });
    expect((await stack.api('GET', '/api/notifications', { user })).body.data).toHaveLength(1);
    await item.waitFor();

    await item.locator('[data-testid="alert-delete"]').click();
    await page.locator('[data-testid="confirm-ok"]').click();
    await item.waitFor({ state: 'detached' });
    await confirm.waitFor({ state: 'detached' });
    expect((await stack.api('GET', '/api/notifications', { user })).body.data).toEqual([]);
  });
});

describe("the free plan's limit on active alerts", () => {
  it('is named before it is reached, and a switch-on over it is refused in the words of the server, in Russian', async () => {
    const page = await freshPage({ locale: 'ru-RU' });
    const user = newUser();
    await signIn(page, user);
    for (const factor of [1.5, 1.6]) await riseAlert(user, 'SBER', factor);
    await page.locator('[data-testid="nav-notifications"]').click();
    const limit = page.locator('[data-testid="alerts-plan-limit"]');
    await expect.poll(() => limit.textContent()).toBe('2 из 3 активных уведомлений на бесплатном тарифе.');
    await riseAlert(user, 'SBER', 1.7);
    // Switched off, one frees a place; a fourth takes it; switched on again, the gate answers.
    const first = page.locator('[data-testid="alert-item"]').last();
    await first.locator('[data-testid="alert-toggle"]').click();
    await first.locator('[data-testid="alert-toggle"]:not(:checked)').waitFor();
    await riseAlert(user, 'SBER', 1.8);
    await page.reload();
    await expect
      .poll(() => limit.textContent())
      .toBe('3 из 3 активных уведомлений на бесплатном тарифе. Чтобы включить ещё одно, выключите другое или перейдите на платный тариф.');
    await page.locator('[data-testid="alert-item"][data-active="false"] [data-testid="alert-toggle"]').click();
    const toast = page.locator('[data-testid="toast-text"]').filter({ hasText: 'тарифе' });
    await expect
      .poll(() => toast.textContent())
      .toBe('На вашем тарифе можно держать включёнными не больше 3 уведомлений. Выключите одно из них или перейдите на платный тариф.');
    await screenshot(page, 'alerts-plan-limit-ru');
  });
});

describe('pop-ups in the app (the in_app channel)', () => {
  it('switched off in settings: firings reach the inbox and the badge but pop up no toast, also on a new page load; on again: toasts', async () => {
    const page = await freshPage({ locale: 'ru-RU' });
    const user = newUser();
    await signIn(page, user);
    await page.locator('html[data-notification-stream="connected"]').waitFor();
    await page.goto(stack.base + '/settings/notifications');
    await page.locator('[data-testid="notification-settings"][data-loaded="true"]').waitFor();
    const inApp = page.locator('[data-testid="settings-channel-in_app"]');
    expect(await page.locator('label', { has: inApp }).textContent()).toBe('Всплывающие уведомления в приложении');
    await inApp.uncheck();
    await page.locator('[data-testid="settings-save"]').click();
    await page.locator('[data-testid="settings-saved"]').waitFor();
    expect((await stack.api('GET', '/api/notification-settings', { user })).body.data.channels.in_app).toBe(false);
    await screenshot(page, 'settings-in-app-off');

    const toasts = page.locator('[data-testid="toast"]');
    expect(await toasts.count()).toBe(0);
    /** Fires one alert of `user` on SBER: a target above the current rate, then a rate past it. */
    const fire = async (factor: number) => {
      const target = await riseAlert(user, 'SBER', factor);
      await stack.publishRates([{ ticker: 'SBER', rate: Math.round(target * 101) / 100, change: 3, asOf: new Date() }]);
    };

    // Off, as the screen saved it: the badge goes up, no toast (it would have come with the firing, before the count).
    await fire(1.01);
    await page.locator('[data-testid="nav-unread"][data-count="1"]').waitFor({ timeout: 15_000 });
    expect(await toasts.count()).toBe(0);

    // Off, as the stream reads it when it connects: a new page load, on a screen that does not read the settings.
    await page.goto(stack.base + '/notifications');
    await page.locator('html[data-notification-stream="connected"][data-in-app-toasts="off"]').waitFor();
    await page.locator('[data-testid="nav-unread"][data-count="1"]').waitFor();
    await fire(1.03);
    await page.locator('[data-testid="nav-unread"][data-count="2"]').waitFor({ timeout: 15_000 });
    expect(await toasts.count()).toBe(0);
    expect(await apiUnread(user)).toBe(2);

    // On again: the next firing pops up.
    await page.goto(stack.base + '/settings/notifications');
    await page.locator('[data-testid="notification-settings"][data-loaded="true"]').waitFor();
    await inApp.check();
    await page.locator('[data-testid="settings-save"]').click();
    await page.locator('[data-testid="settings-saved"]').waitFor();
    await fire(1.05);
    await page.locator('[data-testid="nav-unread"][data-count="3"]').waitFor({ timeout: 15_000 });
    await page.locator('[data-testid="toast"][data-count="1"]').waitFor();
    expect(await toasts.count()).toBe(1);
  });

  it('at phone width in English: the setting says what it switches', async () => {
    const page = await freshPage({ ...PHONE, locale: 'en-US' });
    await signIn(page, newUser());
    await page.goto(stack.base + '/settings/notifications');
    await page.locator('[data-testid="notification-settings"][data-loaded="true"]').waitFor();
    const inApp = page.locator('[data-testid="settings-channel-in_app"]');
    expect(await page.locator('label', { has: inApp }).textContent()).toBe('Pop-ups in the app');
    expect(await page.locator('[data-testid="notification-settings"] .panel').first().textContent()).toContain('The inbox keeps every one, pop-ups on or off.');
    await expectNoSidewaysScroll(page);
    await screenshot(page, 'settings-in-app-phone');
  });
});

describe('notification settings screen', () => {
  /** The settings as the API answers them to `user`. */
  const apiSettings = async (user: string) => (await stack.api('GET', '/api/notification-settings', { user })).body.data;

  it('opens from the navigation with the browser\'s time zone, saves channels, quiet hours, language and e-mail, and shows them again', async () => {
    const page = await freshPage({ locale: 'ru-RU', timeZone: 'Asia/Vladivostok' });
    const user = newUser();
    await signIn(page, user);
    await page.locator('[data-testid="nav-settings"]').click();
    await page.waitForURL(/\/settings\/notifications$/);
    const screen = page.locator('[data-testid="notification-settings"][data-loaded="true"]');
    await screen.waitFor();
    // Defaults: every channel on, no quiet hours; the zone is the browser's until saved.
    for (const c of ['in_app', 'telegram', 'push', 'email']) expect(await page.locator(`[data-testid="settings-channel-${c}"]`).isChecked(), c).toBe(true);
    expect(await page.locator('[data-testid="settings-quiet-enabled"]').isChecked()).toBe(false);
    expect(await page.locator('[data-testid="settings-time-zone"]').inputValue()).toBe('Asia/Vladivostok');
    await page.locator('[data-testid="settings-time-zone-browser"]').waitFor();
    expect(await page.locator('[data-testid="telegram-state"]').getAttribute('data-state')).toBe('none');
    expect(await page.locator('[data-testid="telegram-link"]').textContent()).toBe('Подключить Telegram');
    await screenshot(page, 'settings-ru');

    // Equal start and end are refused beside the times; nothing is sent.
    await page.locator('[data-testid="settings-quiet-enabled"]').check();
    await page.locator('[data-testid="settings-quiet-start"]').fill('07:00');
    await page.locator('[data-testid="settings-quiet-end"]').fill('07:00');
    await page.locator('[data-testid="settings-save"]').click();
    expect(await page.locator('[data-testid="field-error-quiet_hours"]').textContent()).toBe('Начало и конец тихих часов должны различаться.');
    expect((await apiSettings(user)).quiet_hours).toBeNull();

    await page.locator('[data-testid="settings-channel-push"]').uncheck();
    await page.locator('[data-testid="settings-quiet-start"]').fill('22:30');
    await page.locator('[data-testid="settings-quiet-end"]').fill('07:15');
    await page.locator('[data-testid="settings-language"]').selectOption('en');
    await page.locator('[data-testid="settings-email"]').fill('web-settings@example.org');
    await page.locator('[data-testid="settings-save"]').click();
    await page.locator('[data-testid="settings-saved"]').waitFor();
    expect(await apiSettings(user)).toMatchObject({
      channels: { in_app: true, telegram: true, push: false, email: true },
      quiet_hours: { start: '22:30', end: '07:15' },
      time_zone: 'Asia/Vladivostok',
      language: 'en',
      email: { address: 'web-settings@example.org', confirmed: false },
    });
    const emailState = page.locator('[data-testid="settings-email-state"]');
    expect(await emailState.getAttribute('data-confirmed')).toBe('false');
    expect(await emailState.textContent()).toMatch(/^web-settings@example\.org не подтверждён/);
    await screenshot(page, 'settings-saved-ru');

    // A reload shows what was saved (the zone saved, so no hint).
    await page.reload();
    await screen.waitFor();
    expect(await page.locator('[data-testid="settings-channel-push"]').isChecked()).toBe(false);
    expect(await page.locator('[data-testid="settings-quiet-start"]').inputValue()).toBe('22:30');
    expect(await page.locator('[data-testid="settings-quiet-end"]').inputValue()).toBe('07:15');
    expect(await page.locator('[data-testid="settings-language"]').inputValue()).toBe('en');
    expect(await page.locator('[data-testid="settings-email"]').inputValue()).toBe('web-settings@example.org');
    expect(await page.locator('[data-testid="settings-time-zone-browser"]').count()).toBe(0);

    // Quiet hours off again, e-mail removed.
    await page.locator('[data-testid="settings-quiet-enabled"]').uncheck();
    await page.locator('[data-testid="settings-email"]').fill('');
    await page.locator('[data-testid="settings-save"]').click();
    await page.locator('[data-testid="settings-saved"]').waitFor();
    expect(await apiSettings(user)).toMatchObject({ quiet_hours: null, email: { address: null, confirmed: false } });
    expect(await emailState.count()).toBe(0);
  });

  it('shows the last failed delivery of a channel, and fits a phone in English', async () => {
    const page = await freshPage({ ...PHONE, locale: 'en-US' });
    const user = newUser();
    // A permanent failure as a sender records it (the channels' own tests produce them from their stand-ins).
    await stack.delivery!.db.query("insert into delivery_failures (user_id, channel, at, reason) values ($1, 'email', now(), $2)", [user, '550 5.1.1 mailbox unavailable']);
    await signIn(page, user);
    await page.goto(stack.base + '/settings/notifications');
    await page.locator('[data-testid="notification-settings"][data-loaded="true"]').waitFor();
    const failure = page.locator('[data-testid="settings-failure"][data-channel="email"]');
    expect(await failure.textContent()).toMatch(/^Last delivery failed \(.+\): 550 5\.1\.1 mailbox unavailable$/);
    expect(await page.locator('[data-testid="settings-failure"]').count()).toBe(1);
    await expectNoSidewaysScroll(page);
    await screenshot(page, 'settings-phone');
  });
});

describe('linking Telegram from the settings screen', () => {
  /** Clicks the Telegram button (it opens the bot's link in a new tab: t.me, not reachable here, closed at once); the link's token. */
  async function connect(page: Page): Promise<string> {
    const opened = page.context().waitForEvent('page');
    await page.locator('[data-testid="telegram-link"]').click();
    await (await opened).close();
    const link = new URL((await page.locator('[data-testid="telegram-link-url"]').getAttribute('href'))!);
    expect(`${link.origin}${link.pathname}`).toBe('https://t.me/web_e2e_invest_bot');
    const token = link.searchParams.get('start');
    expect(token).toMatch(/^[A-Za-z0-9_-]{16,64}$/);
    return token!;
  }

  it('opens the bot link, /start with its token in the stand-in links the chat; a blocked bot is said and can be linked again', async () => {
    const page = await freshPage({ locale: 'ru-RU' });
    const user = newUser();
    await signIn(page, user);
    await page.goto(stack.base + '/settings/notifications');
    await page.locator('[data-testid="telegram-state"][data-state="none"]').waitFor();
    const token = await connect(page);
    await screenshot(page, 'settings-telegram-waiting');

    // In the stand-in's page, as the Telegram user of chat 424242: /start <token>.
    const chatId = 424242;
    const bot = await freshPage();
    await bot.goto(telegram.pageUrl);
    await bot.locator('form.say input[name="chat_id"]').fill(String(chatId));
    await bot.locator('form.say input[name="text"]').fill(`/start ${token}`);
    await bot.locator('form.say button').click();
    await bot.waitForURL(telegram.pageUrl);

    // The settings screen sees the chat linked without a reload; the bot said so in the chat.
    await page.locator('[data-testid="telegram-state"][data-state="linked"]').waitFor({ timeout: 15_000 });
    expect(await page.locator('[data-testid="telegram-state"]').textContent()).toBe('Подключён: уведомления приходят в чат с ботом.');
    expect(await page.locator('[data-testid="telegram-waiting"]').count()).toBe(0);
    expect(telegram.messages(chatId).length).toBeGreaterThan(0);
    await screenshot(page, 'settings-telegram-linked');

    // The user blocks the bot (the stand-in's page); the next alert gets 403 "bot was blocked by the user".
    await bot.reload();
    await bot.locator('form[action="/demo/block"] button').filter({ hasText: 'Block the bot' }).first().click();
    await expect.poll(() => telegram.chats().find((c) => c.id === chatId)?.blocked).toBe(true);
    const target = await riseAlert(user, 'SBER', 1.2);
    await stack.publishRates([{ ticker: 'SBER', rate: Math.round(target * 101) / 100, change: 21, asOf: new Date() }]);
    await eventually(
      async () => (await stack.api('GET', '/api/notification-settings', { user })).body.data.telegram,
      (tg) => tg.blocked === true && tg.linked === false,
      'the chat unlinked as blocked',
    );
    await page.reload();
    const state = page.locator('[data-testid="telegram-state"][data-state="blocked"]');
    await state.waitFor();
    expect(await state.textContent()).toBe('Бот заблокирован — подключите снова.');
    expect(await page.locator('[data-testid="telegram-link"]').textContent()).toBe('Подключить снова');
    expect(await page.locator('[data-testid="settings-failure"][data-channel="telegram"]').textContent()).toMatch(/^Последняя доставка не удалась \(.+\): .*bot was blocked by the user/);
    await screenshot(page, 'settings-telegram-blocked');
    const phone = await freshPage({ ...PHONE, locale: 'ru-RU' });
    await signIn(phone, user);
    await phone.goto(stack.base + '/settings/notifications');
    await phone.locator('[data-testid="telegram-state"][data-state="blocked"]').waitFor();
    await expectNoSidewaysScroll(phone);
    await screenshot(phone, 'settings-telegram-blocked-phone');

    // Unblocked, and connected again with a new link: linked, no longer blocked.
    const again = await connect(page);
    expect(again).not.toBe(token);
    telegram.block(chatId, false);
    expect(await telegram.userSays(chatId, `/start ${again}`)).toBe(200);
    await page.locator('[data-testid="telegram-state"][data-state="linked"]').waitFor({ timeout: 15_000 });
    expect((await apiSettings(user)).telegram).toEqual({ linked: true, blocked: false, muted_until: null });
  }, 90_000);

  const apiSettings = async (user: string) => (await stack.api('GET', '/api/notification-settings', { user })).body.data;
});
