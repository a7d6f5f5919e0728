/**
 * When a user's paid access ends (issue 30): what the free plan does not allow is paused, not deleted, and fires
 * again once the user pays, on the alerts e2e stack (real billing with the local CloudPayments, real Postgres and
 * NATS). The end comes from the alerts clock passing the subscription's `ends_at`; paying again reaches alerts
 * through BILLING_EVENTS. A user whose paid access alerts never recorded (it began before alerts recorded it) is
 * found by the job notify:record-paid-access, which a starting instance runs.
 */
import { randomUUID } from 'node:crypto';
import { eventually } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AlertsStack, OPENING_RATES, startAlertsStack } from '../support/alerts-stack.js';

let stack: AlertsStack;

const api: AlertsStack['api'] = (...args) => stack.api(...args);
const user = () => `paid-${randomUUID().slice(0, 8)}`;
const at = (d: Date, minutes: number) => new Date(d.getTime() + minutes * 60_000);

beforeAll(async () => {
  stack = await startAlertsStack('alpaid', { tickers: ['SBER', 'GAZP', 'LKOH'], openingRates: OPENING_RATES });
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

async function changeAlert(u: string, body: Record<string, unknown>): Promise<{ id: number; paused: boolean }> {
  const res = await api('POST', '/api/price-change-alert', { user: u, body: { threshold: 5, frequency: 'hourly', name: 'moves', ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

async function pausedById(u: string): Promise<Map<number, boolean>> {
  const list = await api('GET', '/api/notifications', { user: u });
  expect(list.status).toBe(200);
  return new Map(list.body.data.map((n: { id: number; paused: boolean }) => [n.id, n.paused]));
}

/**
 * A paying user with a portfolio holding SBER and five price-change notifications: three on SBER the free plan
 * keeps, a fourth on SBER and one on the portfolio it does not.
 */
async function payingUserWithFiveAlerts() {
  const u = user();
  await stack.subscribePaid(u);
  const endsAt = new Date((await api('GET', '/api/subscription', { user: u })).body.data.ends_at);
  const p = (await api('POST', '/api/portfolios', { user: u, body: { name: 'Main', currency_code: 'RUB' } })).body.data;
  const deal = { type: 'buy', assetable: stack.share('SBER'), quantity: 1, price: 100, date: '2024-01-10' };
  expect((await api('POST', `/api/portfolios/${p.id}/deals`, { user: u, body: deal })).status).toBe(201);
  const onSber = { targetable_type: 'asset', targetable_id: stack.shareIds.SBER, assetable_type_simplified: 'share' };
  const kept = [await changeAlert(u, onSber), await changeAlert(u, onSber), await changeAlert(u, onSber)];
  const newer = await changeAlert(u, onSber);
  const group = await changeAlert(u, { targetable_type: 'portfolio', targetable_id: p.id });
  return { u, endsAt, onSber, kept, newer, group };
}

describe('when paid access ends', () => {
  it('pauses what the free plan does not allow (a portfolio target, a fourth asset one) while the oldest three on assets fire; paying again lets them fire', async () => {
    const { u, endsAt, kept, newer, group } = await payingUserWithFiveAlerts();
    expect([...kept, newer, group].map((n) => n.paused)).toEqual([false, false, false, false, false]);

    try {
      // Paid access ends: the alerts clock passes the subscription's end.
      stack.clock.now = at(endsAt, 1);
      const paused = await eventually(() => pausedById(u), (m) => m.get(group.id) === true, 'the portfolio notification paused');
      expect([...kept, newer, group].map((n) => paused.get(n.id))).toEqual([false, false, false, true, true]);

      // One batch: the kept ones fire on it, the paused ones do not (same batch, so no waiting for "nothing").
      await stack.applyRates([{ ticker: 'SBER', rate: 106, change: 6 }]);
      for (const n of kept) expect(await stack.firings(n.id)).toEqual([{ step_key: 'c0:t5' }]);
      expect(await stack.firings(newer.id)).toEqual([]);
      expect(await stack.firings(group.id)).toEqual([]);
      // Nothing was deleted or switched off.
      const listed = (await api('GET', '/api/notifications', { user: u })).body;
      expect(listed.meta.total).toBe(5);
      expect(listed.data.every((n: { is_active: boolean }) => n.is_active)).toBe(true);

      // Pays again (the provider reports a charge; billing extends the subscription): nothing to do for the user,
      // the paused ones fire on the next move (the kept ones cool down).
      await stack.payAgain(u);
      await eventually(() => pausedById(u), (m) => [...m.values()].every((v) => v === false), 'nothing paused after paying again');
      stack.clock.now = at(endsAt, 2);
      await stack.applyRates([{ ticker: 'SBER', rate: 107, change: 6.5 }]);
      expect(await stack.firings(newer.id)).toEqual([{ step_key: 'c0:t5' }]);
      expect(await stack.firings(group.id)).toEqual([{ step_key: 'c0:t5' }]);
    } finally {
      await stack.applyRates([{ ticker: 'SBER', rate: 100, change: 0 }]);
    }
  });

  it('pauses, once a job run recorded them, users alerts never recorded paid access for (from before it did): paid access ended since, or before', async () => {
    const { u, endsAt, onSber, kept, newer, group } = await payingUserWithFiveAlerts();
    // As for a user from before alerts recorded paid access: the creates recorded it, the billing stream no longer holds it.
    await stack.alerts.db.query('delete from paid_access where user_id = $1', [u]);

    // A user billing answers "not paid" about (their paid access ended before alerts recorded it), holding four
    // active: the fourth was switched on while they paid (here by hand: the plan gate refuses it now).
    const ended = user();
    const endedKept = [await changeAlert(ended, onSber), await changeAlert(ended, onSber), await changeAlert(ended, onSber)];
    expect((await api('POST', `/api/switch-notification/${endedKept[2]!.id}`, { user: ended })).status).toBe(200);
    const endedFourth = await changeAlert(ended, onSber);
    await stack.alerts.db.query('update notifications set is_active = true where id = $1', [endedKept[2]!.id]);
    expect(await stack.alerts.db.query('select 1 from paid_access where user_id = any($1::text[])', [[u, ended]])).toEqual([]);

    try {
      // Paid access ends (10 minutes past it: later than any earlier test's clock, whose subscription ended before).
      stack.clock.now = at(endsAt, 10);
      expect([...(await pausedById(u)).values()]).toEqual([false, false, false, false, false]);
      expect([...(await pausedById(ended)).values()]).toEqual([false, false, false, false]);

      // A deploy: an instance starts with its jobs, and runs notify:record-paid-access at start.
      await stack.addAlertsInstance({ jobsEnabled: true, consumeRates: false });
      const paused = await eventually(() => pausedById(u), (m) => m.get(group.id) === true, 'the portfolio notification paused');
      expect([...kept, newer, group].map((n) => paused.get(n.id))).toEqual([false, false, false, true, true]);
      const endedPaused = await eventually(() => pausedById(ended), (m) => m.get(endedFourth.id) === true, 'the fourth of the ended user paused');
      expect(endedKept.map((n) => endedPaused.get(n.id))).toEqual([false, false, false]);

      await stack.applyRates([{ ticker: 'SBER', rate: 106, change: 6 }]);
      for (const n of [...kept, ...endedKept.slice(0, 2)]) expect(await stack.firings(n.id)).toEqual([{ step_key: 'c0:t5' }]);
      // Switched off and on: a new cycle.
      expect(await stack.firings(endedKept[2]!.id)).toEqual([{ step_key: 'c1:t5' }]);
      expect(await stack.firings(newer.id)).toEqual([]);
      expect(await stack.firings(group.id)).toEqual([]);
      expect(await stack.firings(endedFourth.id)).toEqual([]);
    } finally {
      await stack.applyRates([{ ticker: 'SBER', rate: 100, change: 0 }]);
    }
  });
});
