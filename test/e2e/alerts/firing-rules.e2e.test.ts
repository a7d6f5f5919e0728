/**
 * Edges of alerts over HTTP and rate events (real Postgres and NATS, the alerts e2e stack): Idempotency-Key
 * replays before any check, texts of sub-cent prices and of price-change firings, a group's membership racing
 * a create, the plan gate under concurrency, null and odd rates, cooldown against the daily reset.
 */
import { randomUUID } from 'node:crypto';
import { lockQuotaOwner } from '@invest/platform';
import { blockedBy, eventually, holdOpen, idempotencyWaiters } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AlertsStack, OPENING_RATES, startAlertsStack } from '../support/alerts-stack.js';

let stack: AlertsStack;

const api: AlertsStack['api'] = (...args) => stack.api(...args);

const user = () => `edge-${randomUUID().slice(0, 8)}`;
const share = (t: string) => stack.share(t);
const firings: AlertsStack['firings'] = (id) => stack.firings(id);
const rates: AlertsStack['applyRates'] = (batch) => stack.applyRates(batch);
const subscribePaid: AlertsStack['subscribePaid'] = (u) => stack.subscribePaid(u);

const at = (d: Date, minutes: number) => new Date(d.getTime() + minutes * 60_000);

async function changeAlert(u: string, body: Record<string, unknown>) {
  const res = await api('POST', '/api/price-change-alert', { user: u, body: { threshold: 5, frequency: 'hourly', name: 'moves', ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

beforeAll(async () => {
  stack = await startAlertsStack('aledge', { tickers: ['SBER', 'GAZP', 'LKOH'], openingRates: OPENING_RATES });
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

describe('rendering', () => {
  it('a price-target on a sub-cent asset renders its rate and target with their significant digits, not as 0', async () => {
    const u = user();
    await rates([{ ticker: 'LKOH', rate: 0.00000042, change: 0 }]);
    const res = await api('POST', '/api/price-alert', { user: u, body: { target_price: 0.0000004, assetable: share('LKOH'), name: 'tiny' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.condition.operator).toBe('<=');
    try {
      await rates([{ ticker: 'LKOH', rate: 0.00000039, change: -7 }]);
      expect(await firings(res.body.data.id)).toHaveLength(1);
      const en = (await api('GET', '/api/notification-events', { user: u, headers: { 'accept-language': 'en' } })).body.data[0];
      expect(en.title).toBe('LKOH: price 0.00000039');
      expect(en.body).toContain('reached the target price 0.0000004: now 0.00000039.');
      const ru = (await api('GET', '/api/notification-events', { user: u })).body.data[0];
      expect(ru.title).toBe('LKOH: цена 0,00000039');
    } finally {
      await rates([{ ticker: 'LKOH', rate: 300, change: 0 }]);
    }
  });
});

describe('rates dated ahead of their recording', () => {
  it('are skipped by alerts and portfolios: they neither fire nor hold back the next correct rate', async () => {
    // Past the opening rates' time: portfolios stores only a strictly newer rate.
    stack.clock.now = at(stack.clock.now, 1);
    const u = user();
    const n = (await api('POST', '/api/price-alert', { user: u, body: { target_price: 210, assetable: share('GAZP'), name: 'ahead' } })).body.data;
    expect(n.condition.operator).toBe('>=');
    const gazp = stack.shareIds.GAZP!;
    const portfolioPrice = async () =>
      (await stack.portfolios.db.query<{ rate: number; as_of: Date }>("select current_rate::float8 as rate, rate_as_of as as_of from assets where asset_type = 'share' and asset_id = $1", [gazp]))[0];
    // Published the way the screener publishes (its recorder and relay), which would itself have refused such a quote.
    await stack.publishRates([{ ticker: 'GAZP', rate: 250, change: 25, asOf: at(stack.clock.now, 24 * 60) }]);
    try {
      // The next correct rate lands in both services (had the first been stored, it would be refused as older).
      await rates([{ ticker: 'GAZP', rate: 205, change: 2.5 }]);
      await eventually(portfolioPrice, (p) => p?.rate === 205, 'the portfolios price of GAZP');
      expect(await firings(n.id)).toEqual([]);
      await rates([{ ticker: 'GAZP', rate: 211, change: 5.5 }]);
      expect(await firings(n.id)).toEqual([{ step_key: 'c0' }]);
      const [fired] = (await api('GET', '/api/notification-events', { user: u })).body.data;
      expect(fired.explanation.rate).toBe(211);
    } finally {
      await rates([{ ticker: 'GAZP', rate: 200, change: 0 }]);
    }
  });
});

describe('membership read model', () => {
  it('a watchlist notification created while an item is being removed never fires on the removed asset', async () => {
    const u = user();
    await subscribePaid(u);
    const w = (await api('POST', '/api/watchlists', { user: u, body: { name: 'Race' } })).body.data;
    await api('POST', `/api/watchlists/${w.id}/items`, { user: u, body: { assetable: share('SBER') } });
    const gazp = (await api('POST', `/api/watchlists/${w.id}/items`, { user: u, body: { assetable: share('GAZP') } })).body.data;
    await eventually(() => stack.alerts.db.query("select 1 from memberships where target_type = 'watchlist' and target_id = $1", [w.id]), (r) => r.length === 2, 'two members');
    // The create has asked portfolios for the members (SBER, GAZP); it waits for the user's quota lock.
    const held = await holdOpen(stack.alerts.db, (tx) => lockQuotaOwner(tx, `notifications:${u}`));
    const creating = api('POST', '/api/price-change-alert', { user: u, body: { threshold: 2, frequency: 'hourly', targetable_type: 'watchlist', targetable_id: w.id, name: 'w' } });
    expect(await blockedBy(stack.alerts.db, held.pid, creating)).toBe(true);
    // Meanwhile GAZP leaves the watchlist, and alerts applies the removal.
    expect((await api('DELETE', `/api/watchlists/${w.id}/items/${gazp.id}`, { user: u })).status).toBe(204);
    await eventually(() => stack.alerts.db.query("select 1 from memberships where target_type = 'watchlist' and target_id = $1", [w.id]), (r) => r.length === 1, 'GAZP removed');
    held.release();
    await held.done;
    const created = await creating;
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const members = await stack.alerts.db.query<{ asset_id: string }>("select asset_id::text from memberships where target_type = 'watchlist' and target_id = $1 order by 1", [w.id]);
    // GAZP is no longer in the watchlist (portfolios says so).
    const pf = await api('GET', `/api/watchlists/${w.id}`, { user: u });
    expect(JSON.stringify(pf.body)).not.toContain(`"id":${stack.shareIds.GAZP}`);
    try {
      await rates([{ ticker: 'GAZP', rate: 220, change: 9 }]);
      expect(await firings(created.body.data.id), `memberships now: ${JSON.stringify(members)}`).toEqual([]);
      expect(members.map((m) => Number(m.asset_id))).toEqual([stack.shareIds.SBER]);
    } finally {
      await rates([{ ticker: 'GAZP', rate: 200, change: 0 }]);
    }
  });
});

describe('idempotency', () => {
  it('a repeat with the same key and body answers the first response even when the rate now equals the target', async () => {
    const u = user();
    const headers = { 'idempotency-key': randomUUID() };
    const body = { target_price: 105, assetable: share('SBER'), name: 'k' };
    const first = await api('POST', '/api/price-alert', { user: u, body, headers });
    expect(first.status).toBe(201);
    await rates([{ ticker: 'SBER', rate: 105, change: 0 }]);
    try {
      const again = await api('POST', '/api/price-alert', { user: u, body, headers });
      // A repeat with the same key and body within 24 hours answers the first response (same id, 201), before any check.
      expect(again.status, JSON.stringify(again.body)).toBe(201);
      expect(again.body.data.id).toBe(first.body.data.id);
    } finally {
      await rates([{ ticker: 'SBER', rate: 100, change: 0 }]);
    }
  });

  it('a repeat while the first create still runs answers its response even when a check fails meanwhile', async () => {
    const u = user();
    const headers = { 'idempotency-key': randomUUID() };
    const body = { target_price: 105, assetable: share('SBER'), name: 'race' };
    // The first create has passed its checks and holds its key; it waits for the user's quota lock.
    const held = await holdOpen(stack.alerts.db, (tx) => lockQuotaOwner(tx, `notifications:${u}`));
    const first = api('POST', '/api/price-alert', { user: u, body, headers });
    expect(await blockedBy(stack.alerts.db, held.pid, first)).toBe(true);
    // Now the rate equals the target: the repeat's check fails (a 422 without a first).
    await rates([{ ticker: 'SBER', rate: 105, change: 0 }]);
    try {
      const again = api('POST', '/api/price-alert', { user: u, body, headers });
      // The repeat waits for the first, which holds its key (its check never runs).
      await eventually(() => idempotencyWaiters(stack.alerts.db), (n) => n > 0, 'the repeat waiting for the key');
      held.release();
      await held.done;
      const [a, b] = await Promise.all([first, again]);
      expect(a.status, a.text).toBe(201);
      expect(b.status, b.text).toBe(201);
      expect(b.body).toEqual(a.body);
      expect((await api('GET', '/api/notifications', { user: u })).body.data).toHaveLength(1);
    } finally {
      held.release();
      await rates([{ ticker: 'SBER', rate: 100, change: 0 }]);
    }
  });

  it('a repeat of a watchlist price-change create with the same key answers the first response after the watchlist is gone', async () => {
    const u = user();
    await subscribePaid(u);
    const w = (await api('POST', '/api/watchlists', { user: u, body: { name: 'Gone' } })).body.data;
    const headers = { 'idempotency-key': randomUUID() };
    const body = { threshold: 5, frequency: 'daily', targetable_type: 'watchlist', targetable_id: w.id, name: 'g' };
    const first = await api('POST', '/api/price-change-alert', { user: u, body, headers });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect((await api('DELETE', `/api/watchlists/${w.id}`, { user: u })).status).toBe(204);
    const again = await api('POST', '/api/price-change-alert', { user: u, body, headers });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    expect(again.body).toEqual(first.body);
    // Without the key the same body is checked: the watchlist no longer exists.
    expect((await api('POST', '/api/price-change-alert', { user: u, body })).status).toBe(422);
  });

  it('the same key with another body is a 422; concurrent same-key creates make one notification', async () => {
    const u = user();
    const key = randomUUID();
    const a = await api('POST', '/api/price-alert', { user: u, body: { target_price: 130, assetable: share('SBER') }, headers: { 'idempotency-key': key } });
    expect(a.status).toBe(201);
    const b = await api('POST', '/api/price-alert', { user: u, body: { target_price: 131, assetable: share('SBER') }, headers: { 'idempotency-key': key } });
    expect(b.status).toBe(422);
    expect(b.body.errors).toHaveProperty('Idempotency-Key');
    // Same key on the other create route is another operation.
    const c = await api('POST', '/api/price-change-alert', {
      user: u,
      body: { threshold: 5, frequency: 'daily', targetable_type: 'asset', targetable_id: stack.shareIds.SBER, assetable_type_simplified: 'share' },
      headers: { 'idempotency-key': key },
    });
    expect(c.status).toBe(201);
    const u2 = user();
    const key2 = randomUUID();
    const all = await Promise.all(Array.from({ length: 6 }, () => api('POST', '/api/price-alert', { user: u2, body: { target_price: 140, assetable: share('SBER') }, headers: { 'idempotency-key': key2 } })));
    expect(all.map((r) => r.status)).toEqual(Array(6).fill(201));
    expect(new Set(all.map((r) => r.body.data.id)).size).toBe(1);
    expect((await api('GET', '/api/notifications', { user: u2 })).body.meta.total).toBe(1);
  });
});

describe('plan gate under concurrency', () => {
  it('a free user racing 12 creates over both routes gets exactly 3 active', async () => {
    const u = user();
    const reqs = Array.from({ length: 12 }, (_, i) =>
      i % 2 === 0
        ? api('POST', '/api/price-alert', { user: u, body: { target_price: 150 + i, assetable: share('SBER') } })
        : api('POST', '/api/price-change-alert', { user: u, body: { threshold: 5, frequency: 'daily', targetable_type: 'asset', targetable_id: stack.shareIds.GAZP, assetable_type_simplified: 'share' } }),
    );
    const res = await Promise.all(reqs);
    const codes = res.map((r) => r.status).sort();
    expect(codes.filter((c) => c === 201)).toHaveLength(3);
    expect(codes.filter((c) => c === 403)).toHaveLength(9);
    const list = await api('GET', '/api/notifications?per_page=100', { user: u });
    expect(list.body.data.filter((n: { is_active: boolean }) => n.is_active)).toHaveLength(3);
  });

  it('switching many off and on concurrently never exceeds the free limit', async () => {
    const u = user();
    const ids: number[] = [];
    for (const t of [160, 161, 162]) ids.push((await api('POST', '/api/price-alert', { user: u, body: { target_price: t, assetable: share('SBER') } })).body.data.id);
    for (const id of ids) expect((await api('POST', `/api/switch-notification/${id}`, { user: u })).status).toBe(200);
    for (const t of [163, 164, 165]) expect((await api('POST', '/api/price-alert', { user: u, body: { target_price: t, assetable: share('SBER') } })).status).toBe(201);
    // Three off, three on. Switch all six at once, twice.
    const all = (await api('GET', '/api/notifications', { user: u })).body.data.map((n: { id: number }) => n.id);
    for (let round = 0; round < 2; round++) {
      const res = await Promise.all(all.map((id: number) => api('POST', `/api/switch-notification/${id}`, { user: u })));
      for (const r of res) expect([200, 403, 409]).toContain(r.status);
      const active = (await api('GET', '/api/notifications', { user: u })).body.data.filter((n: { is_active: boolean }) => n.is_active);
      expect(active.length).toBeLessThanOrEqual(3);
    }
  });
});

describe('texts', () => {
  it("a price-change firing on an asset names the asset by its name and ticker; one on a watchlist by the watchlist's name", async () => {
    const u = user();
    await subscribePaid(u);
    const n = await changeAlert(u, { targetable_type: 'asset', targetable_id: stack.shareIds.SBER, assetable_type_simplified: 'share' });
    const assetName: string = n.target.name;
    expect(assetName).toBeTruthy();
    const w = (await api('POST', '/api/watchlists', { user: u, body: { name: 'Banks' } })).body.data;
    await api('POST', `/api/watchlists/${w.id}/items`, { user: u, body: { assetable: share('SBER') } });
    await eventually(() => stack.alerts.db.query("select 1 from memberships where target_type = 'watchlist' and target_id = $1", [w.id]), (r) => r.length === 1, 'member');
    const g = await changeAlert(u, { targetable_type: 'watchlist', targetable_id: w.id });
    try {
      await rates([{ ticker: 'SBER', rate: 106, change: 6 }]);
      expect(await firings(n.id)).toHaveLength(1);
      expect(await firings(g.id)).toHaveLength(1);
      const texts = async (lang: string) => {
        const data = (await api('GET', '/api/notification-events', { user: u, headers: { 'accept-language': lang } })).body.data as { notification_id: number; title: string; body: string }[];
        return { asset: data.find((e) => e.notification_id === n.id)!, group: data.find((e) => e.notification_id === g.id)! };
      };
      const en = await texts('en');
      expect(en.asset.title).toBe('SBER: 24h change +6%');
      expect(en.asset.body).toBe(`${assetName} (SBER): the 24h change reached the 5% threshold (SBER +6%). Next threshold 10%.`);
      expect(en.group.title).toBe('Watchlist «Banks»: 24h change +6%');
      expect(en.group.body).toBe('Watchlist «Banks»: the 24h change reached the 5% threshold (SBER +6%). Next threshold 10%.');
      const ru = await texts('ru');
      expect(ru.asset.body).toBe(`${assetName} (SBER): изменение за 24 ч достигло порога 5% (SBER +6%). Следующий порог 10%.`);
    } finally {
      await rates([{ ticker: 'SBER', rate: 100, change: 0 }]);
    }
  });
});

describe('null and odd rates', () => {
  it('a null rate with a change fires a price-change (no 500 rendering it) and never a price-target; a null change fires no price-change', async () => {
    const u = user();
    const t = (await api('POST', '/api/price-alert', { user: u, body: { target_price: 250, assetable: share('GAZP') } })).body.data;
    const c = await changeAlert(u, { targetable_type: 'asset', targetable_id: stack.shareIds.GAZP, assetable_type_simplified: 'share' });
    try {
      await rates([{ ticker: 'GAZP', rate: null, change: 12 }]);
      expect(await firings(t.id)).toEqual([]);
      expect(await firings(c.id)).toEqual([{ step_key: 'c0:t5' }]);
      const inbox = await api('GET', '/api/notification-events', { user: u, headers: { 'accept-language': 'en' } });
      expect(inbox.status).toBe(200);
      expect(inbox.body.data[0].explanation.rate).toBeNull();
      const list = await api('GET', '/api/notifications', { user: u });
      expect(list.status).toBe(200);
      stack.clock.now = at(stack.clock.now, 61);
      await rates([{ ticker: 'GAZP', rate: 260, change: null }]);
      expect(await firings(c.id)).toHaveLength(1);
      expect(await firings(t.id)).toEqual([{ step_key: 'c0' }]);
    } finally {
      stack.clock.now = at(stack.clock.now, 1);
      await rates([{ ticker: 'GAZP', rate: 200, change: 0 }]);
    }
  });
});

describe('cooldown, daily reset and group membership', () => {
  it('daily frequency: the daily reset lowers the threshold but the cooldown still holds; after it the step fires in a new cycle', async () => {
    const u = user();
    const base = new Date(Math.max(Date.now(), stack.clock.now.getTime()) + 3 * 86_400_000);
    // 22:00 Moscow (19:00 UTC).
    const evening = new Date(Date.UTC(base.getUTCFullYear(), base.getUTCMonth(), base.getUTCDate(), 19, 0));
    stack.clock.now = evening;
    const n = await changeAlert(u, { targetable_type: 'asset', targetable_id: stack.shareIds.SBER, assetable_type_simplified: 'share', frequency: 'daily' });
    try {
      await rates([{ ticker: 'SBER', rate: 106, change: 6 }]);
      expect(await firings(n.id)).toEqual([{ step_key: 'c0:t5' }]);
      // 03:00 Moscow the next day: the threshold is 5 again but the daily cooldown runs until 22:00.
      stack.clock.now = at(evening, 5 * 60);
      await rates([{ ticker: 'SBER', rate: 107, change: 7 }]);
      expect(await firings(n.id)).toHaveLength(1);
      const list = (await api('GET', '/api/notifications', { user: u })).body.data[0];
      expect(list.condition.initial_value).toBe(5);
      stack.clock.now = at(evening, 24 * 60 + 1);
      await rates([{ ticker: 'SBER', rate: 107.5, change: 7.5 }]);
      expect(await firings(n.id)).toEqual([{ step_key: 'c0:t5' }, { step_key: 'c1:t5' }]);
    } finally {
      stack.clock.now = at(stack.clock.now, 1);
      await rates([{ ticker: 'SBER', rate: 100, change: 0 }]);
    }
  });

  it('a portfolio target follows a close by sell and a reopen by buy', async () => {
    const u = user();
    await subscribePaid(u);
    const p = (await api('POST', '/api/portfolios', { user: u, body: { name: 'P', currency_code: 'RUB' } })).body.data;
    expect((await api('POST', `/api/portfolios/${p.id}/deals`, { user: u, body: { type: 'buy', assetable: share('GAZP'), quantity: 2, price: 200, date: '2024-01-10' } })).status).toBe(201);
    const n = await changeAlert(u, { targetable_type: 'portfolio', targetable_id: p.id, threshold: 2 });
    const sell = await api('POST', `/api/portfolios/${p.id}/deals`, { user: u, body: { type: 'sell', assetable: share('GAZP'), quantity: 2, price: 210, date: '2024-01-11' } });
    expect(sell.status, JSON.stringify(sell.body)).toBe(201);
    await eventually(() => stack.alerts.db.query("select 1 from memberships where target_type = 'portfolio' and target_id = $1", [p.id]), (r) => r.length === 0, 'closed');
    try {
      await rates([{ ticker: 'GAZP', rate: 210, change: 5 }]);
      expect(await firings(n.id)).toEqual([]);
      // Deleting the sell reopens the position.
      const deals = await api('GET', `/api/portfolios/${p.id}/deals`, { user: u });
      const sellId = deals.body.data.find((d: { type: string }) => d.type === 'sell')?.id;
      expect(sellId).toBeTruthy();
      expect((await api('DELETE', `/api/portfolios/${p.id}/deals/${sellId}`, { user: u })).status).toBe(204);
      await eventually(() => stack.alerts.db.query("select 1 from memberships where target_type = 'portfolio' and target_id = $1", [p.id]), (r) => r.length === 1, 'reopened');
      await rates([{ ticker: 'GAZP', rate: 211, change: 5.5 }]);
      expect(await firings(n.id)).toHaveLength(1);
    } finally {
      await rates([{ ticker: 'GAZP', rate: 200, change: 0 }]);
    }
  });
});
