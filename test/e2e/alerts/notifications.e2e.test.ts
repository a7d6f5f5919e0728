/**
 * Alerts through HTTP on real Postgres and NATS: the screener publishes RatesUpdated through its own recorder
 * and relay, portfolios publishes membership events, billing answers entitlements, alerts evaluates and fires,
 * and the gateway serves the notifications, the inbox and the SSE stream. Covers every row of the spec's
 * state table, the growing threshold, cooldown, daily reset (injected clock), switch reset, portfolio and
 * watchlist targets with membership changes, stale rates, 422s, isolation, the plan gate, exactly-once
 * (redelivery, two instances, sweep against event) and the SSE stream with Last-Event-ID.
 */
import { randomUUID } from 'node:crypto';
import { type NotificationFiredV1 } from '@invest/contracts';
import { markTargetDeleted, priceAlertsJob, priceChangeAlertsJob } from '@invest/alerts/testing/alerts-test-kit';
import { busSubject, createLogger, runJob } from '@invest/platform';
import { blockedBy, eventually, holdOpen } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AlertsStack, OPENING_RATES, startAlertsStack } from '../support/alerts-stack.js';

let stack: AlertsStack;
const fired: { subject: string; data: NotificationFiredV1 }[] = [];
const logger = createLogger('test', 'silent');

const api: AlertsStack['api'] = (...args) => stack.api(...args);

const user = () => `u-${randomUUID().slice(0, 8)}`;
const share = (t: string) => stack.share(t);
const firings: AlertsStack['firings'] = (id) => stack.firings(id);
const at = (d: Date, minutes: number) => new Date(d.getTime() + minutes * 60_000);

const rates: AlertsStack['applyRates'] = (batch) => stack.applyRates(batch);
const subscribePaid: AlertsStack['subscribePaid'] = (u) => stack.subscribePaid(u);

async function priceAlert(u: string, target: number, ticker = 'SBER') {
  const res = await api('POST', '/api/price-alert', { user: u, body: { target_price: target, assetable: share(ticker), name: `${ticker} ${target}` } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

async function changeAlert(u: string, body: Record<string, unknown>) {
  const res = await api('POST', '/api/price-change-alert', { user: u, body: { threshold: 5, frequency: 'hourly', name: 'moves', ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

beforeAll(async () => {
  // A per-user limit small enough to reach (no other test gives one user more than 6 notifications).
  stack = await startAlertsStack('alrt', { tickers: ['SBER', 'GAZP', 'LKOH'], openingRates: OPENING_RATES, alerts: { notificationsPerUser: 8 } });
  stack.bus.nc.subscribe(busSubject(stack.gw.config.busPrefix, 'alerts.events.>'), {
    callback: (_err, msg) => {
      const e = msg.json<{ data: NotificationFiredV1 }>();
      fired.push({ subject: msg.subject, data: e.data });
    },
  });
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

describe('price-target (spec: fires once on reaching the target, then is inactive)', () => {
  it('fixes >= above the current rate, fires when the rate reaches it, deactivates, and publishes NotificationFired with its explanation', async () => {
    const u = user();
    const n = await priceAlert(u, 110);
    expect(n).toMatchObject({ type: 'price-target', notification_type_id: 2, is_active: true, condition: { operator: '>=', value: 110 }, target: { type: 'asset', ticker: 'SBER' } });
    await rates([{ ticker: 'SBER', rate: 109.99, change: 1 }]);
    expect(await firings(n.id)).toEqual([]);
    await rates([{ ticker: 'SBER', rate: 111, change: 2 }]);
    expect(await firings(n.id)).toEqual([{ step_key: 'c0' }]);
    const list = await api('GET', '/api/notifications', { user: u });
    expect(list.body.data[0]).toMatchObject({ id: n.id, is_active: false });
    expect(list.body.data[0].last_triggered_at).not.toBeNull();

    const event = await eventually(async () => fired.find((f) => f.data.notificationId === n.id), (f) => !!f, 'NotificationFired');
    expect(event!.subject).toBe(busSubject(stack.gw.config.busPrefix, 'alerts.events.NotificationFired'));
    expect(event!.data).toMatchObject({
      userId: u,
      type: 'price-target',
      path: `/assets/share/${stack.shareIds.SBER}`,
      assets: [{ ticker: 'SBER', rate: 111, type: 'share' }],
      explanation: { threshold: 110, operator: '>=', rate: 111, next_threshold: null, cooldown_ends_at: null, source: 'event' },
    });
    expect(event!.data.title).toContain('SBER');
    expect(event!.data.explanation!.latency_ms).toBeGreaterThanOrEqual(0);

    // Inactive now: a later crossing fires nothing.
    await rates([{ ticker: 'SBER', rate: 120, change: 3 }]);
    expect(await firings(n.id)).toHaveLength(1);
    await rates([{ ticker: 'SBER', rate: 100, change: 0 }]);
  });

  it('fixes <= below the current rate: a rise never fires it, a fall does; a target equal to the rate is a 422', async () => {
    const u = user();
    const n = await priceAlert(u, 190, 'GAZP');
    expect(n.condition.operator).toBe('<=');
    await rates([{ ticker: 'GAZP', rate: 250, change: 1 }]);
    expect(await firings(n.id)).toEqual([]);
    await rates([{ ticker: 'GAZP', rate: 189, change: 1 }]);
    expect(await firings(n.id)).toHaveLength(1);
    const equal = await api('POST', '/api/price-alert', { user: u, body: { target_price: 189, assetable: share('GAZP'), name: 'x' } });
    expect(equal.status).toBe(422);
    expect(equal.body.errors).toHaveProperty('target_price');
    await rates([{ ticker: 'GAZP', rate: 200, change: 0 }]);
  });

  it('renders the inbox in the Accept-Language (en, ru by default) with ticker, name, price and path', async () => {
    const u = user();
    const n = await priceAlert(u, 310, 'LKOH');
    await rates([{ ticker: 'LKOH', rate: 312.5, change: 1 }]);
    const en = await api('GET', '/api/notification-events', { user: u, headers: { 'accept-language': 'en-US,en;q=0.9' } });
    expect(en.status).toBe(200);
    expect(en.body.meta).toMatchObject({ total: 1, unread_count: 1 });
    expect(en.body.data[0]).toMatchObject({ notification_id: n.id, type: 'price-target', path: `/assets/share/${stack.shareIds.LKOH}`, read_at: null });
    expect(en.body.data[0].title).toBe('LKOH: price 312.5');
    expect(en.body.data[0].body).toMatch(/reached the target price 310: now 312\.5/);
    const ru = await api('GET', '/api/notification-events', { user: u });
    expect(ru.body.data[0].title).toBe('LKOH: цена 312,5');
    expect(ru.body.links.first).toContain('page=1');
    const read = await api('POST', '/api/notification-events/read', { user: u, body: { ids: [en.body.data[0].id] } });
    expect(read.body.data).toEqual({ marked: 1, unread_count: 0 });
    expect((await api('GET', '/api/notification-events?unread=true', { user: u })).body.meta.total).toBe(0);
    // An empty value is "not given" (every firing), as on every query field; anything but a boolean is a 422.
    expect((await api('GET', '/api/notification-events?unread=', { user: u })).body.meta.total).toBe(1);
    const bogus = await api('GET', '/api/notification-events?unread=maybe', { user: u });
    expect(bogus.status).toBe(422);
    expect(bogus.body.errors).toHaveProperty('unread');
    await rates([{ ticker: 'LKOH', rate: 300, change: 0 }]);
    // A deleted notification's firings leave the inbox with it.
    expect((await api('DELETE', `/api/notifications/${n.id}`, { user: u })).status).toBe(204);
    expect((await api('GET', '/api/notification-events', { user: u })).body.meta.total).toBe(0);
    expect(await firings(n.id)).toEqual([]);
  });
});

describe('price-change (spec: growing threshold, cooldown, daily reset, switch reset)', () => {
  it('grows 5 → 10 → 15, waits for the cooldown between firings, and never deactivates', async () => {
    const u = user();
    // 09:00 Moscow on a day after every clock the file used so far: the two hours below must not cross the
    // MARKET_TZ midnight, whose daily reset would return the threshold to 5 (the test ran red at 19–21 UTC).
    const later = new Date(Math.max(Date.now(), stack.clock.now.getTime()) + 86_400_000);
    const start = new Date(Date.UTC(later.getUTCFullYear(), later.getUTCMonth(), later.getUTCDate(), 6, 0));
    stack.clock.now = start;
    const n = await changeAlert(u, { targetable_type: 'asset', targetable_id: stack.shareIds.GAZP, assetable_type_simplified: 'share', frequency: 'hourly' });
    expect(n).toMatchObject({ type: 'price-change', notification_type_id: 8, condition: { operator: '>=', value: 5, initial_value: 5, cooldown_minutes: 60 } });
    try {
      await rates([{ ticker: 'GAZP', rate: 200, change: 4.9 }]);
      expect(await firings(n.id)).toEqual([]);
      await rates([{ ticker: 'GAZP', rate: 211, change: -5.5 }]);
      expect(await firings(n.id)).toEqual([{ step_key: 'c0:t5' }]);
      // Past 10 but inside the cooldown: nothing.
      stack.clock.now = at(start, 30);
      await rates([{ ticker: 'GAZP', rate: 222, change: 11 }]);
      expect(await firings(n.id)).toHaveLength(1);
      stack.clock.now = at(start, 61);
      await rates([{ ticker: 'GAZP', rate: 223, change: 11.2 }]);
      stack.clock.now = at(start, 123);
      await rates([{ ticker: 'GAZP', rate: 231, change: 15.1 }]);
      expect(await firings(n.id)).toEqual([{ step_key: 'c0:t5' }, { step_key: 'c0:t10' }, { step_key: 'c0:t15' }]);
      const list = await api('GET', '/api/notifications', { user: u });
      expect(list.body.data[0]).toMatchObject({ is_active: true, condition: { value: 5, initial_value: 20 } });
      const inbox = await api('GET', '/api/notification-events', { user: u, headers: { 'accept-language': 'en' } });
      expect(inbox.body.data.map((e: { explanation: { threshold: number; next_threshold: number } }) => [e.explanation.threshold, e.explanation.next_threshold])).toEqual([
        [15, 20],
        [10, 15],
        [5, 10],
      ]);
      expect(inbox.body.data[2].explanation).toMatchObject({ price_change_percentage_24h: -5.5, rate: 211 });
      expect(new Date(inbox.body.data[0].explanation.cooldown_ends_at).getTime()).toBe(at(start, 183).getTime());
    } finally {
      stack.clock.now = new Date(Math.max(Date.now(), stack.clock.now.getTime()));
      await rates([{ ticker: 'GAZP', rate: 200, change: 0 }]);
    }
  });

  it('returns the threshold to its step at the start of the MARKET_TZ day (injected clock), and the same step fires again that day', async () => {
    const u = user();
    // 20:00 Moscow (17:00 UTC) today, then 00:30 Moscow tomorrow.
    const base = new Date(Math.max(Date.now(), stack.clock.now.getTime()) + 2 * 86_400_000);
    const evening = new Date(Date.UTC(base.getUTCFullYear(), base.getUTCMonth(), base.getUTCDate(), 17, 0));
    const nextMorning = new Date(evening.getTime() + 4.5 * 3_600_000);
    stack.clock.now = evening;
    const n = await changeAlert(u, { targetable_type: 'asset', targetable_id: stack.shareIds.LKOH, assetable_type_simplified: 'share', frequency: 'hourly' });
    await rates([{ ticker: 'LKOH', rate: 320, change: 6 }]);
    expect(await firings(n.id)).toEqual([{ step_key: 'c0:t5' }]);
    expect((await api('GET', '/api/notifications', { user: u })).body.data[0].condition.initial_value).toBe(10);
    stack.clock.now = nextMorning;
    expect((await api('GET', '/api/notifications', { user: u })).body.data[0].condition.initial_value).toBe(5);
    await rates([{ ticker: 'LKOH', rate: 321, change: 6.5 }]);
    expect(await firings(n.id)).toEqual([{ step_key: 'c0:t5' }, { step_key: 'c1:t5' }]);
    await rates([{ ticker: 'LKOH', rate: 300, change: 0 }]);
  });

  it('switch toggles is_active and returns the threshold to its step; a switched-on price-target can fire again', async () => {
    const u = user();
    const start = new Date(Math.max(Date.now(), stack.clock.now.getTime()) + 4 * 86_400_000);
    stack.clock.now = start;
    const n = await changeAlert(u, { targetable_type: 'asset', targetable_id: stack.shareIds.SBER, assetable_type_simplified: 'share', frequency: 'daily' });
    await rates([{ ticker: 'SBER', rate: 106, change: 6 }]);
    expect((await api('GET', '/api/notifications', { user: u })).body.data[0].condition.initial_value).toBe(10);
    const off = await api('POST', `/api/switch-notification/${n.id}`, { user: u });
    expect(off.status).toBe(200);
    expect(off.body.data).toMatchObject({ is_active: false, condition: { initial_value: 5 } });
    stack.clock.now = at(start, 24 * 60 + 1);
    await rates([{ ticker: 'SBER', rate: 107, change: 7 }]);
    expect(await firings(n.id)).toHaveLength(1);
    const on = await api('POST', `/api/switch-notification/${n.id}`, { user: u });
    expect(on.body.data).toMatchObject({ is_active: true, condition: { initial_value: 5 } });
    await rates([{ ticker: 'SBER', rate: 107.5, change: 7.1 }]);
    expect(await firings(n.id)).toHaveLength(2);

    const t = await priceAlert(u, 110, 'SBER');
    await rates([{ ticker: 'SBER', rate: 111, change: 0 }]);
    await rates([{ ticker: 'SBER', rate: 100, change: 0 }]);
    expect((await api('POST', `/api/switch-notification/${t.id}`, { user: u })).body.data.is_active).toBe(true);
    await rates([{ ticker: 'SBER', rate: 112, change: 0 }]);
    expect(await firings(t.id)).toEqual([{ step_key: 'c0' }, { step_key: 'c1' }]);
    await rates([{ ticker: 'SBER', rate: 100, change: 0 }]);
  });

  it('never fires on rates older than the maximum age, by event or by sweep', async () => {
    const u = user();
    // Two hours on: the stored rates are stale now; the new one is newer than them but older than the maximum age.
    stack.clock.now = at(stack.clock.now, 120);
    const n = await changeAlert(u, { targetable_type: 'asset', targetable_id: stack.shareIds.GAZP, assetable_type_simplified: 'share' });
    const t = await priceAlert(u, 150, 'GAZP');
    await rates([{ ticker: 'GAZP', rate: 140, change: 30, asOf: at(stack.clock.now, -61) }]);
    expect(await firings(n.id)).toEqual([]);
    expect(await firings(t.id)).toEqual([]);
    const sweep = await runJob(stack.alerts.db, priceChangeAlertsJob(stack.alerts.db, stack.alerts.evaluator, stack.alerts.publisher), [], logger);
    const targetSweep = await runJob(stack.alerts.db, priceAlertsJob(stack.alerts.db, stack.alerts.evaluator, stack.alerts.publisher), [], logger);
    expect(sweep.status).toBe('done');
    expect(targetSweep.status).toBe('done');
    expect(await firings(n.id)).toEqual([]);
    expect(await firings(t.id)).toEqual([]);
    await rates([{ ticker: 'GAZP', rate: 200, change: 0 }]);
  });
});

describe('portfolio and watchlist targets', () => {
  it('a portfolio target follows its positions: fires once per evaluation listing every member that crossed, and deactivates when the portfolio is deleted', async () => {
    const u = user();
    await subscribePaid(u);
    const p = (await api('POST', '/api/portfolios', { user: u, body: { name: 'Main', currency_code: 'RUB' } })).body.data;
    expect((await api('POST', `/api/portfolios/${p.id}/deals`, { user: u, body: { type: 'buy', assetable: share('SBER'), quantity: 1, price: 100, date: '2024-01-10' } })).status).toBe(201);
    const n = await changeAlert(u, { targetable_type: 'portfolio', targetable_id: p.id, threshold: 3 });
    expect(n.target).toMatchObject({ type: 'portfolio', id: p.id, name: 'Main', assets_count: 1 });
    // GAZP is not in the portfolio.
    await rates([{ ticker: 'GAZP', rate: 210, change: 9 }]);
    expect(await firings(n.id)).toEqual([]);
    // A position opened later joins through PositionOpened.
    expect((await api('POST', `/api/portfolios/${p.id}/deals`, { user: u, body: { type: 'buy', assetable: share('LKOH'), quantity: 1, price: 300, date: '2024-01-10' } })).status).toBe(201);
    await eventually(() => stack.alerts.db.query("select 1 from memberships where target_type = 'portfolio' and target_id = $1", [p.id]), (r) => r.length === 2, 'membership');
    await rates([
      { ticker: 'SBER', rate: 104, change: 4 },
      { ticker: 'LKOH', rate: 290, change: -3.5 },
    ]);
    expect(await firings(n.id)).toHaveLength(1);
    const inbox = await api('GET', '/api/notification-events', { user: u, headers: { 'accept-language': 'en' } });
    expect(inbox.body.data[0].assets.map((a: { ticker: string }) => a.ticker)).toEqual(['SBER', 'LKOH']);
    expect(inbox.body.data[0].title).toBe('Portfolio «Main»: 24h change +4%');
    expect(inbox.body.data[0].path).toBe(`/portfolios/${p.id}`);

    expect((await api('DELETE', `/api/portfolios/${p.id}`, { user: u })).status).toBe(204);
    await eventually(async () => (await api('GET', '/api/notifications', { user: u })).body.data[0], (v) => v.is_active === false, 'deactivated');
    const late = await api('POST', '/api/price-change-alert', { user: u, body: { threshold: 5, frequency: 'daily', targetable_type: 'portfolio', targetable_id: p.id, name: 'x' } });
    expect(late.status).toBe(422);
    expect(late.body.errors).toHaveProperty('targetable_id');
    // Switched on again it could never fire: refused as the create is, and it stays off.
    const revived = await api('POST', `/api/switch-notification/${n.id}`, { user: u });
    expect(revived.status).toBe(422);
    expect(revived.body.errors).toHaveProperty('targetable_id');
    expect((await api('GET', '/api/notifications', { user: u })).body.data[0].is_active).toBe(false);
    await rates([
      { ticker: 'SBER', rate: 100, change: 0 },
      { ticker: 'GAZP', rate: 200, change: 0 },
      { ticker: 'LKOH', rate: 300, change: 0 },
    ]);
  });

  it('a watchlist target follows its items, and deactivates when the watchlist is deleted', async () => {
    const u = user();
    await subscribePaid(u);
    const w = (await api('POST', '/api/watchlists', { user: u, body: { name: 'Watch' } })).body.data;
    const item = (await api('POST', `/api/watchlists/${w.id}/items`, { user: u, body: { assetable: share('GAZP') } })).body.data;
    const n = await changeAlert(u, { targetable_type: 'watchlist', targetable_id: w.id, threshold: 2, frequency: 'hourly' });
    expect((await api('DELETE', `/api/watchlists/${w.id}/items/${item.id}`, { user: u })).status).toBe(204);
    await eventually(() => stack.alerts.db.query("select 1 from memberships where target_type = 'watchlist' and target_id = $1", [w.id]), (r) => r.length === 0, 'item removed');
    await rates([{ ticker: 'GAZP', rate: 210, change: 5 }]);
    expect(await firings(n.id)).toEqual([]);
    await api('POST', `/api/watchlists/${w.id}/items`, { user: u, body: { assetable: share('GAZP') } });
    await eventually(() => stack.alerts.db.query("select 1 from memberships where target_type = 'watchlist' and target_id = $1", [w.id]), (r) => r.length === 1, 'item added');
    await rates([{ ticker: 'GAZP', rate: 211, change: 5.1 }]);
    expect(await firings(n.id)).toHaveLength(1);
    expect((await api('DELETE', `/api/watchlists/${w.id}`, { user: u })).status).toBe(204);
    await eventually(async () => (await api('GET', '/api/notifications', { user: u })).body.data[0], (v) => v.is_active === false, 'deactivated');
    expect((await api('POST', `/api/switch-notification/${n.id}`, { user: u })).status).toBe(422);
    await rates([{ ticker: 'GAZP', rate: 200, change: 0 }]);
  });

  it('a switch-on racing the target\'s deletion upstream waits for it and is refused (no active notification on a deleted target)', async () => {
    const u = user();
    await subscribePaid(u);
    const w = (await api('POST', '/api/watchlists', { user: u, body: { name: 'Race' } })).body.data;
    const n = await changeAlert(u, { targetable_type: 'watchlist', targetable_id: w.id, threshold: 2 });
    expect((await api('POST', `/api/switch-notification/${n.id}`, { user: u })).body.data.is_active).toBe(false);
    // The WatchlistDeleted handler's work, held uncommitted: the switch-on asked portfolios (the watchlist is
    // still there) before it, so only the target's lock in its transaction can keep it from switching on.
    const deletion = await holdOpen(stack.alerts.db, (tx) => markTargetDeleted(tx, { type: 'watchlist', id: w.id }, new Date()));
    const switching = api('POST', `/api/switch-notification/${n.id}`, { user: u });
    expect(await blockedBy(stack.alerts.db, deletion.pid, switching)).toBe(true);
    deletion.release();
    await deletion.done;
    const res = await switching;
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveProperty('targetable_id');
    expect((await api('GET', '/api/notifications', { user: u })).body.data[0].is_active).toBe(false);
  });
});

describe('validation, isolation, idempotency and the plan gate', () => {
  it('names every bad field with a 422', async () => {
    const u = user();
    const cases: [string, Record<string, unknown>, string][] = [
      ['/api/price-alert', { assetable: share('SBER') }, 'target_price'],
      ['/api/price-alert', { target_price: -1, assetable: share('SBER') }, 'target_price'],
      ['/api/price-alert', { target_price: 'abc', assetable: share('SBER') }, 'target_price'],
      // Exact decimals as every price: at most 8 places, at most 1e15.
      ['/api/price-alert', { target_price: 0.000000001, assetable: share('SBER') }, 'target_price'],
      ['/api/price-alert', { target_price: 5e-324, assetable: share('SBER') }, 'target_price'],
      ['/api/price-alert', { target_price: 1e16, assetable: share('SBER') }, 'target_price'],
      ['/api/price-alert', { target_price: 10, assetable: { type: 'planet', id: 1 } }, 'assetable.type'],
      ['/api/price-alert', { target_price: 10, assetable: { type: 'share', id: 99_999_999 } }, 'assetable.id'],
      ['/api/price-alert', { target_price: 10, assetable: share('SBER'), name: 'x'.repeat(256) }, 'name'],
      ['/api/price-change-alert', { threshold: 4, frequency: 'daily', targetable_type: 'asset', targetable_id: 1, assetable_type_simplified: 'share' }, 'threshold'],
      ['/api/price-change-alert', { threshold: 5, frequency: 'weekly', targetable_type: 'asset', targetable_id: 1, assetable_type_simplified: 'share' }, 'frequency'],
      ['/api/price-change-alert', { threshold: 5, frequency: 'daily', targetable_type: 'planet', targetable_id: 1 }, 'targetable_type'],
      ['/api/price-change-alert', { threshold: 5, frequency: 'daily', targetable_type: 'asset', targetable_id: 'x', assetable_type_simplified: 'share' }, 'targetable_id'],
      ['/api/price-change-alert', { threshold: 5, frequency: 'daily', targetable_type: 'asset', targetable_id: 1 }, 'assetable_type_simplified'],
      ['/api/price-change-alert', { threshold: 5, frequency: 'daily', targetable_type: 'asset', targetable_id: 99_999_999, assetable_type_simplified: 'share' }, 'targetable_id'],
    ];
    for (const [path, body, field] of cases) {
      const res = await api('POST', path, { user: u, body });
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(422);
      expect(Object.keys(res.body.errors), `${path} ${JSON.stringify(body)}`).toContain(field);
    }
    const res = await api('POST', '/api/price-alert', { user: u, body: { target_price: 10, assetable: share('SBER') }, headers: { 'idempotency-key': 'has space' } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveProperty('Idempotency-Key');
    // A decimal string, exponent notation included, is a price as a JSON number is.
    const written = await api('POST', '/api/price-alert', { user: u, body: { target_price: '1.4512345e2', assetable: share('SBER') } });
    expect(written.status, JSON.stringify(written.body)).toBe(201);
    expect(written.body.data.condition.value).toBe(145.12345);
    // More significant digits than a double keeps: stored as entered (numeric) and answered as a JSON number with
    // every digit (read from the text: JSON.parse gives the nearest double, 1e15), by the create, the list and a switch.
    const exact = await api('POST', '/api/price-alert', { user: u, body: { target_price: '999999999999999.99999999', assetable: share('SBER') } });
    expect(exact.status, JSON.stringify(exact.body)).toBe(201);
    expect(exact.body.data.condition.value).toBe(1e15);
    expect(await stack.alerts.db.query('select value from notifications where id = $1', [exact.body.data.id])).toEqual([{ value: '999999999999999.99999999' }]);
    const digits = '"value":999999999999999.99999999,"initial_value":999999999999999.99999999,';
    expect(exact.text).toContain(digits);
    const listed = await api('GET', '/api/notifications', { user: u });
    expect(listed.status).toBe(200);
    expect(listed.text).toContain(digits);
    const switched = await api('POST', `/api/switch-notification/${exact.body.data.id}`, { user: u });
    expect(switched.status, switched.text).toBe(200);
    expect(switched.text).toContain(digits);
  });

  it('a user never sees or changes another user\'s notification (404), and a paid-only target of another user is a 422', async () => {
    const a = user();
    const b = user();
    const n = await priceAlert(a, 130);
    expect((await api('POST', `/api/switch-notification/${n.id}`, { user: b })).status).toBe(404);
    expect((await api('DELETE', `/api/notifications/${n.id}`, { user: b })).status).toBe(404);
    expect((await api('POST', '/api/switch-notification/abc', { user: b })).status).toBe(404);
    expect((await api('GET', '/api/notifications', { user: b })).body.data).toEqual([]);
    expect((await api('GET', '/api/notifications', { user: a })).body.data.map((x: { id: number }) => x.id)).toEqual([n.id]);
    await subscribePaid(b);
    const p = (await api('POST', '/api/portfolios', { user: a, body: { name: 'A', currency_code: 'RUB' } })).body.data;
    const foreign = await api('POST', '/api/price-change-alert', { user: b, body: { threshold: 5, frequency: 'daily', targetable_type: 'portfolio', targetable_id: p.id } });
    expect(foreign.status).toBe(422);
    expect(foreign.body.errors).toHaveProperty('targetable_id');
    expect((await api('DELETE', `/api/notifications/${n.id}`, { user: a })).status).toBe(204);
    expect((await api('GET', '/api/notifications', { user: a })).body.data).toEqual([]);
    expect((await api('GET', '/api/notifications')).status).toBe(401);
  });

  it("a custom asset is its owner's: another user's is a 422 on the asset's field, the owner's is accepted and deactivated when deleted", async () => {
    const owner = user();
    const other = user();
    const created = await api('POST', '/api/custom-assets', { user: owner, body: { name: 'My flat', currency: 'RUB', price: 100 } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const ref = { type: 'custom_asset', id: created.body.data.id };
    const foreign = await api('POST', '/api/price-alert', { user: other, body: { target_price: 150, assetable: ref } });
    expect(foreign.status).toBe(422);
    expect(foreign.body.errors).toHaveProperty(['assetable.id']);
    expect(JSON.stringify(foreign.body)).not.toContain('My flat');
    const foreignChange = await api('POST', '/api/price-change-alert', {
      user: other,
      body: { threshold: 5, frequency: 'daily', targetable_type: 'asset', targetable_id: ref.id, assetable_type_simplified: 'custom_asset' },
    });
    expect(foreignChange.status).toBe(422);
    expect(foreignChange.body.errors).toHaveProperty('targetable_id');
    const own = await api('POST', '/api/price-change-alert', {
      user: owner,
      body: { threshold: 5, frequency: 'daily', targetable_type: 'asset', targetable_id: ref.id, assetable_type_simplified: 'custom_asset' },
    });
    expect(own.status, JSON.stringify(own.body)).toBe(201);
    expect(own.body.data.target).toMatchObject({ type: 'asset', asset_type: 'custom_asset', name: 'My flat' });
    // Deleted by its owner (AssetDeleted on MARKET_EVENTS): the notification is deactivated.
    expect((await api('DELETE', `/api/custom-assets/${ref.id}`, { user: owner })).status).toBe(204);
    await eventually(async () => (await api('GET', '/api/notifications', { user: owner })).body.data[0], (n) => n.is_active === false, 'deactivated');
    const revived = await api('POST', `/api/switch-notification/${own.body.data.id}`, { user: owner });
    expect(revived.status).toBe(422);
    expect(revived.body.errors).toHaveProperty('targetable_id');
    expect((await api('GET', '/api/notifications', { user: owner })).body.data[0].is_active).toBe(false);
  });

  it('answers a repeated create with the same Idempotency-Key with the first notification', async () => {
    const u = user();
    const headers = { 'idempotency-key': randomUUID() };
    const body = { target_price: 140, assetable: share('SBER'), name: 'once' };
    const first = await api('POST', '/api/price-alert', { user: u, body, headers });
    const again = await api('POST', '/api/price-alert', { user: u, body, headers });
    expect(first.status).toBe(201);
    expect(again).toEqual(first);
    expect((await api('GET', '/api/notifications', { user: u })).body.meta.total).toBe(1);
  });

  it('free plan: 3 active notifications and asset targets only (403 plan_required with the limit); a paid plan lifts both', async () => {
    const u = user();
    for (const t of [120, 121, 122]) await priceAlert(u, t);
    const fourth = await api('POST', '/api/price-alert', { user: u, body: { target_price: 123, assetable: share('SBER') } });
    expect(fourth.status).toBe(403);
    expect(fourth.body).toMatchObject({ code: 'plan_required', limit: { active_notifications: 3, plan: 'free' } });
    const w = (await api('POST', '/api/watchlists', { user: u, body: { name: 'W' } })).body.data;
    const group = await api('POST', '/api/price-change-alert', { user: u, body: { threshold: 5, frequency: 'daily', targetable_type: 'watchlist', targetable_id: w.id } });
    expect(group.status).toBe(403);
    expect(group.body).toMatchObject({ code: 'plan_required', limit: { notification_targets: ['asset'] } });
    // Switching one off frees a slot; switching it on again over the limit is refused.
    const list = (await api('GET', '/api/notifications', { user: u })).body.data;
    expect((await api('POST', `/api/switch-notification/${list[0].id}`, { user: u })).body.data.is_active).toBe(false);
    await priceAlert(u, 124);
    expect((await api('POST', `/api/switch-notification/${list[0].id}`, { user: u })).status).toBe(403);
    await subscribePaid(u);
    expect((await api('POST', `/api/switch-notification/${list[0].id}`, { user: u })).status).toBe(200);
    expect((await api('POST', '/api/price-change-alert', { user: u, body: { threshold: 5, frequency: 'daily', targetable_type: 'watchlist', targetable_id: w.id } })).status).toBe(201);
  });

  it('a user has at most ALERTS_MAX_PER_USER notifications, active or not (422 on notifications), counted under the lock', async () => {
    const u = user();
    await subscribePaid(u);
    const create = (t: number) => api('POST', '/api/price-alert', { user: u, body: { target_price: t, assetable: share('SBER') } });
    // Switched off, a notification still counts (it can be switched on again): a free user cannot pile them up either.
    const first = await priceAlert(u, 150);
    expect((await api('POST', `/api/switch-notification/${first.id}`, { user: u })).body.data.is_active).toBe(false);
    // Ten at once for the seven places left: exactly seven are created.
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => create(151 + i)));
    expect(results.map((r) => r.status).sort()).toEqual([...Array(7).fill(201), ...Array(3).fill(422)]);
    const refused = results.find((r) => r.status === 422)!;
    expect(refused.body.errors.notifications[0]).toMatch(/at most 8 notifications/);
    expect((await api('GET', '/api/notifications', { user: u })).body.meta.total).toBe(8);
    const change = await api('POST', '/api/price-change-alert', {
      user: u,
      body: { threshold: 5, frequency: 'daily', targetable_type: 'asset', targetable_id: stack.shareIds.SBER, assetable_type_simplified: 'share' },
    });
    expect(change.status).toBe(422);
    expect(change.body.errors).toHaveProperty('notifications');
    // Deleting one makes room again.
    expect((await api('DELETE', `/api/notifications/${first.id}`, { user: u })).status).toBe(204);
    expect((await create(170)).status).toBe(201);
  });

  it('a free user at both limits is told the per-user one (422), which no plan lifts', async () => {
    const u = user();
    const ids: number[] = [];
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < (round < 2 ? 3 : 2); i++) ids.push((await priceAlert(u, 130 + ids.length)).id);
      if (round < 2) for (const id of ids.slice(-3)) expect((await api('POST', `/api/switch-notification/${id}`, { user: u })).body.data.is_active).toBe(false);
    }
    // 8 notifications, 2 active; one more switched on: 3 active, the free plan's limit too.
    expect((await api('POST', `/api/switch-notification/${ids[0]}`, { user: u })).body.data.is_active).toBe(true);
    const ninth = await api('POST', '/api/price-alert', { user: u, body: { target_price: 140, assetable: share('SBER') } });
    expect(ninth.status).toBe(422);
    expect(ninth.body.errors).toHaveProperty('notifications');
  });
});

describe('exactly once', () => {
  it('a redelivered RatesUpdated (same event id) fires nothing twice', async () => {
    const u = user();
    const n = await priceAlert(u, 115);
    const sub = stack.bus.nc.subscribe(busSubject(stack.gw.config.busPrefix, 'market.events.RatesUpdated'), { max: 1 });
    await rates([{ ticker: 'SBER', rate: 116, change: 0 }]);
    let envelope: string | undefined;
    for await (const m of sub) envelope = m.string();
    expect(await firings(n.id)).toHaveLength(1);
    // The same envelope again under another message id: JetStream keeps it, the consumer's inbox drops it.
    // Switched on again first, so an applied redelivery would fire its new cycle.
    await switchBackOn(u, n.id);
    const duplicates = stack.alerts.ratesConsumer!.stats().duplicates;
    await stack.bus.js.publish(busSubject(stack.gw.config.busPrefix, 'market.events.RatesUpdated'), envelope!, { msgID: randomUUID() });
    await eventually(async () => stack.alerts.ratesConsumer!.stats().duplicates, (d) => d > duplicates, 'the duplicate seen');
    expect(await firings(n.id)).toHaveLength(1);
    await rates([{ ticker: 'SBER', rate: 100, change: 0 }]);
  });

  it('a sweep racing the consumer, and two sweeps at once, fire each step once', async () => {
    const u = user();
    const ns: { id: number }[] = [];
    for (let i = 0; i < 2; i++) ns.push(await changeAlert(u, { targetable_type: 'asset', targetable_id: stack.shareIds.LKOH, assetable_type_simplified: 'share', threshold: 1 }));
    const ev = stack.alerts.evaluator;
    const db = stack.alerts.db;
    const sweep = () => db.transaction((tx) => ev.evaluate(tx, { all: true }, ['price-change'], 'test-sweep')).catch((err: unknown) => err);
    const published = stack.publishRates([{ ticker: 'LKOH', rate: 310, change: 1.5 }]);
    await Promise.all([published, sweep(), sweep(), sweep()]);
    await eventually(() => db.query<{ n: string }>('select count(*)::text as n from notification_firings where notification_id = any($1::bigint[])', [ns.map((n) => n.id)]), (r) => r[0]!.n === '2', 'two firings');
    await rates([{ ticker: 'LKOH', rate: 311, change: 1.6 }]);
    await Promise.all([sweep(), sweep()]);
    for (const n of ns) expect(await firings(n.id)).toEqual([{ step_key: 'c0:t1' }]);
    await rates([{ ticker: 'LKOH', rate: 300, change: 0 }]);
  });

  it('two alerts instances on one database and bus fire each notification once', async () => {
    const second = await stack.addAlertsInstance();
    const u = user();
    const ns: { id: number }[] = [];
    for (const t of [101, 102, 103]) ns.push(await priceAlert(u, t));
    // Both instances consume (one durable, shared) and both sweep while the batches arrive.
    const sweeps = [stack.alerts, second].map((app) =>
      Promise.all([0, 1, 2].map(() => app.db.transaction((tx) => app.evaluator.evaluate(tx, { all: true }, ['price-target'], 'test-sweep')).catch((err: unknown) => err))),
    );
    for (let i = 0; i < 6; i++) await stack.publishRates([{ ticker: 'SBER', rate: 100 + i, change: 0 }]);
    await Promise.all(sweeps);
    // Two instances apply batches in parallel, so one observed at the same as-of may be overwritten by an
    // earlier batch the other instance commits later: the batches waited for below are a minute newer.
    stack.clock.now = at(stack.clock.now, 1);
    await rates([{ ticker: 'SBER', rate: 104, change: 0 }]);
    for (const n of ns) expect(await firings(n.id)).toEqual([{ step_key: 'c0' }]);
    expect(second.ratesConsumer!.stats().applied + stack.alerts.ratesConsumer!.stats().applied).toBeGreaterThan(0);
    stack.clock.now = at(stack.clock.now, 1);
    await rates([{ ticker: 'SBER', rate: 100, change: 0 }]);
  });
});

describe('SSE /api/notification-events/stream', () => {
  it('streams new firings with an id each, sends heartbeats, and replays what was missed after Last-Event-ID', async () => {
    const u = user();
    const [a, b] = [await priceAlert(u, 150, 'GAZP'), await priceAlert(u, 160, 'GAZP')];
    expect(a.condition.operator).toBe('<=');
    const controller = new AbortController();
    const res = await fetch(new URL('/api/notification-events/stream', stack.base), { headers: { authorization: `Bearer ${await stack.token(u)}`, 'accept-language': 'en' }, signal: controller.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    let text = '';
    const readUntil = async (re: RegExp) => {
      const until = Date.now() + 10_000;
      while (!re.test(text)) {
        if (Date.now() > until) throw new Error(`stream lacks ${re}: ${text}`);
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        text += new TextDecoder().decode(value);
      }
    };
    await readUntil(/: heartbeat/);
    await rates([{ ticker: 'GAZP', rate: 155, change: 0 }]);
    await readUntil(/event: notification/);
    const first = /id: (\d+)\nevent: notification\ndata: (.*)\n/.exec(text)!;
    expect(JSON.parse(first[2]!)).toMatchObject({ notification_id: b.id, title: 'GAZP: price 155' });
    controller.abort();

    // While disconnected, the other one fires; a reconnect with Last-Event-ID gets it (and only it).
    await rates([{ ticker: 'GAZP', rate: 149, change: 0 }]);
    const again = await fetch(new URL('/api/notification-events/stream', stack.base), { headers: { authorization: `Bearer ${await stack.token(u)}`, 'last-event-id': first[1]! } });
    const r2 = again.body!.getReader();
    let t2 = '';
    const until = Date.now() + 10_000;
    while (!/event: notification/.test(t2) && Date.now() < until) t2 += new TextDecoder().decode((await r2.read()).value);
    await r2.cancel();
    const ids = [...t2.matchAll(/id: (\d+)/g)].map((m) => Number(m[1]));
    expect(ids).toHaveLength(1);
    expect(ids[0]).toBeGreaterThan(Number(first[1]));
    expect(t2).toContain(`"notification_id":${a.id}`);
    const bad = await api('GET', '/api/notification-events/stream', { user: u, headers: { 'last-event-id': 'x' } });
    expect(bad.status).toBe(422);
    await rates([{ ticker: 'GAZP', rate: 200, change: 0 }]);
  });

  it('holds at most 10 live streams per user: the 11th is a 429 naming the limit; closing one makes room; others are not affected', async () => {
    const [u, other] = [user(), user()];
    const open = async (who: string) => {
      const controller = new AbortController();
      const res = await fetch(new URL('/api/notification-events/stream', stack.base), { headers: { authorization: `Bearer ${await stack.token(who)}` }, signal: controller.signal });
      return { res, close: () => controller.abort() };
    };
    const streams = [];
    for (let i = 0; i < 10; i++) streams.push(await open(u));
    try {
      expect(streams.map((s) => s.res.status)).toEqual(Array(10).fill(200));
      const refused = await open(u);
      expect(refused.res.status).toBe(429);
      expect(await refused.res.json()).toEqual({ message: 'At most 10 live notification streams per user at once; close one (another tab or device) first.', limit: 10, resets_at: null });
      const theirs = await open(other);
      expect(theirs.res.status).toBe(200);
      theirs.close();
      streams.shift()!.close();
      // The gateway sees the connection close a moment later.
      await expect.poll(async () => {
        const next = await open(u);
        if (next.res.status === 200) streams.push(next);
        return next.res.status;
      }, { timeout: 5_000, interval: 100 }).toBe(200);
    } finally {
      for (const s of streams) s.close();
    }
  });
});

async function switchBackOn(u: string, id: number): Promise<void> {
  const res = await api('POST', `/api/switch-notification/${id}`, { user: u });
  expect(res.body.data.is_active).toBe(true);
}
