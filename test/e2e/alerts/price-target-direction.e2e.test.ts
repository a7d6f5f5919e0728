/**
 * A price-target's direction is decided at creation from the newest rate known (the screener's may be newer
 * than the one alerts holds); a rate older than that one never fires it: not the backstop sweep over what
 * alerts holds while its rates consumer is down, nor a backlog of older batches the consumer catches up on.
 * Rates are written as the screener's rate writer does (its assets table and its RatesUpdated, relayed to
 * MARKET_EVENTS).
 */
import { randomUUID } from 'node:crypto';
import { priceAlertsJob } from '@invest/alerts/testing/alerts-test-kit';
import { createLogger, runJob } from '@invest/platform';
import { eventually } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AlertsStack, startAlertsStack } from '../support/alerts-stack.js';

let stack: AlertsStack;
const logger = createLogger('test', 'silent');

const api: AlertsStack['api'] = (...args) => stack.api(...args);

/**
 * The screener's rate moves to `rate` at `asOf`, as its rate writer does it: the asset's rate (what
 * `screener.assets.get` answers a create) and a RatesUpdated batch (relayed to MARKET_EVENTS for alerts).
 */
/** Waits until alerts' latest rate of `ticker` is `rate`. */
async function alertsHolds(ticker: string, rate: number): Promise<void> {
  await eventually(
    () => stack.alerts.db.query<{ rate: string }>("select rate from latest_rates where asset_type = 'share' and asset_id = $1", [stack.shareIds[ticker]]),
    (r) => r[0] !== undefined && Number(r[0].rate) === rate,
    `alerts has ${ticker} at ${rate}`,
  );
}

async function writeRate(ticker: string, rate: number, change: number, asOf: Date): Promise<void> {
  const updated = await stack.screener.db.query(
    "update assets set current_rate = $2, price_change_percentage_24h = $3, rate_updated_at = $4 where type = 'share' and id = $1 returning id",
    [stack.shareIds[ticker], rate, change, asOf],
  );
  expect(updated).toHaveLength(1);
  await stack.publishRates([{ ticker, rate, change, asOf }]);
}

beforeAll(async () => {
  stack = await startAlertsStack('aldirect', { tickers: ['SBER'] });
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

describe('a price-target decided from a rate newer than alerts holds', () => {
  it('a price-target whose direction was decided from the screener\'s newer rate is not fired by the sweep on the older rate alerts still holds', async () => {
    const t0 = stack.clock.now;
    await writeRate('SBER', 100, 0, t0);
    await alertsHolds('SBER', 100);
    // The consumer is down; the screener moves on to 110 a minute later.
    await stack.alerts.ratesConsumer!.stop();
    stack.clock.now = new Date(t0.getTime() + 60_000);
    await writeRate('SBER', 110, 10, stack.clock.now);
    const u = `dir-${randomUUID().slice(0, 8)}`;
    const created = await api('POST', '/api/price-alert', { user: u, body: { target_price: 105, assetable: { type: 'share', id: stack.shareIds.SBER }, name: 'below' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    // Decided from the screener's 110: waits for a fall to 105.
    expect(created.body.data.condition.operator).toBe('<=');
    // The backstop sweep (every 3 minutes) runs meanwhile.
    stack.clock.now = new Date(t0.getTime() + 3 * 60_000);
    const swept = await runJob(stack.alerts.db, priceAlertsJob(stack.alerts.db, stack.alerts.evaluator, stack.alerts.publisher), [], logger);
    expect(swept.status).toBe('done');
    const fired = await stack.alerts.db.query<{ explanation: unknown; texts: { en: { body: string } } }>('select explanation, texts from notification_firings where notification_id = $1', [created.body.data.id]);
    // SBER never was at or below 105 after the notification was created (100 was a minute before; it is 110 now).
    expect(fired.map((f) => f.texts.en.body)).toEqual([]);
  });

  it('with the consumer behind (a backlog of older batches), the backlog does not fire a price-target created on the newer rate', async () => {
    // Continues from the test above: the consumer is stopped; restart it first and let it catch up.
    await stack.alerts.ratesConsumer!.start();
    const t0 = new Date(stack.clock.now.getTime() + 60_000);
    stack.clock.now = t0;
    await writeRate('SBER', 90, -10, t0);
    await alertsHolds('SBER', 90);
    // Alerts falls behind: two batches wait in MARKET_EVENTS (100, then 110).
    await stack.alerts.ratesConsumer!.stop();
    stack.clock.now = new Date(t0.getTime() + 60_000);
    await writeRate('SBER', 100, 0, stack.clock.now);
    stack.clock.now = new Date(t0.getTime() + 120_000);
    await writeRate('SBER', 110, 10, stack.clock.now);
    const u = `dir-${randomUUID().slice(0, 8)}`;
    const created = await api('POST', '/api/price-alert', { user: u, body: { target_price: 105, assetable: { type: 'share', id: stack.shareIds.SBER }, name: 'below' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data.condition.operator).toBe('<=');
    // The consumer catches up: 100 (observed before the create), then 110. It handles the batches in stream
    // order, and a batch's firings commit before its rates: once alerts holds 110, the 100 batch has done
    // whatever it was going to do.
    await stack.alerts.ratesConsumer!.start();
    await alertsHolds('SBER', 110);
    const fired = await stack.alerts.db.query<{ texts: { en: { body: string } } }>('select texts from notification_firings where notification_id = $1', [created.body.data.id]);
    expect(fired.map((f) => f.texts.en.body)).toEqual([]);
    // A fall after the rate the direction was decided from fires it.
    stack.clock.now = new Date(t0.getTime() + 180_000);
    await writeRate('SBER', 104, -5, stack.clock.now);
    await eventually(
      () => stack.alerts.db.query<{ explanation: { rate: number } }>('select explanation from notification_firings where notification_id = $1', [created.body.data.id]),
      (r) => r.length === 1 && r[0]!.explanation.rate === 104,
      'fired on 104',
    );
  });
});

describe('the direction asked for (POST /api/price-alert `direction`)', () => {
  const create = (user: string, body: Record<string, unknown>) => api('POST', '/api/price-alert', { user, body: { assetable: { type: 'share', id: stack.shareIds.SBER }, ...body } });

  it('above waits for a rise, below for a fall; each fires only its way', async () => {
    // Continues from the tests above (the consumer runs again): SBER moves to 200.
    const t0 = new Date(stack.clock.now.getTime() + 60_000);
    stack.clock.now = t0;
    await writeRate('SBER', 200, 0, t0);
    await alertsHolds('SBER', 200);
    const u = `dir-${randomUUID().slice(0, 8)}`;
    const above = await create(u, { target_price: '200.00000001', direction: 'above', name: 'above' });
    expect(above.status, JSON.stringify(above.body)).toBe(201);
    expect(above.body.data.condition).toMatchObject({ operator: '>=', value: 200.00000001 });
    const below = await create(u, { target_price: 190, direction: 'below', name: 'below' });
    expect(below.status, JSON.stringify(below.body)).toBe(201);
    expect(below.body.data.condition).toMatchObject({ operator: '<=', value: 190 });

    const firedOf = async (id: number) => (await stack.alerts.db.query<{ id: string }>('select id from notification_firings where notification_id = $1', [id])).length;
    // A rise past 200.00000001 fires the one above, not the one below.
    stack.clock.now = new Date(t0.getTime() + 60_000);
    await writeRate('SBER', 201, 0.5, stack.clock.now);
    await eventually(() => firedOf(above.body.data.id), (n) => n === 1, 'above fired on the rise');
    await alertsHolds('SBER', 201);
    expect(await firedOf(below.body.data.id)).toBe(0);
    // A fall to 190 fires the one below.
    stack.clock.now = new Date(t0.getTime() + 120_000);
    await writeRate('SBER', 189.5, -5, stack.clock.now);
    await eventually(() => firedOf(below.body.data.id), (n) => n === 1, 'below fired on the fall');
    expect(await firedOf(above.body.data.id)).toBe(1);
  });

  it('refuses a target already reached in the direction asked for (or equal to the rate) with a 422 on target_price, creating nothing', async () => {
    const t0 = new Date(stack.clock.now.getTime() + 60_000);
    stack.clock.now = t0;
    await writeRate('SBER', 300, 0, t0);
    await alertsHolds('SBER', 300);
    const u = `dir-${randomUUID().slice(0, 8)}`;
    const cases: [string | number, 'above' | 'below', RegExp][] = [
      [290, 'above', /already reached.*direction above.*above the current rate \(300\)/],
      [300, 'above', /already reached.*direction above/],
      [310, 'below', /already reached.*direction below.*below the current rate \(300\)/],
      ['300.00', 'below', /already reached.*direction below/],
      ['300.00000001', 'below', /already reached.*direction below/],
    ];
    for (const [target, direction, message] of cases) {
      const refused = await create(u, { target_price: target, direction });
      expect(refused.status, `${target} ${direction}: ${JSON.stringify(refused.body)}`).toBe(422);
      expect(Object.keys(refused.body.errors)).toEqual(['target_price']);
      expect(refused.body.errors.target_price[0]).toMatch(message);
    }
    const unknown = await create(u, { target_price: 310, direction: 'up' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors.direction).toEqual(['The direction must be above or below.']);
    expect((await api('GET', '/api/notifications', { user: u })).body.data).toEqual([]);
  });

  it('without a direction (or null) keeps the rule of the current rate: above waits for a rise, below for a fall, equal is refused', async () => {
    // SBER is at 300 (the test above).
    const u = `dir-${randomUUID().slice(0, 8)}`;
    const up = await create(u, { target_price: 310 });
    expect(up.status, JSON.stringify(up.body)).toBe(201);
    expect(up.body.data.condition.operator).toBe('>=');
    const down = await create(u, { target_price: 290, direction: null });
    expect(down.status, JSON.stringify(down.body)).toBe(201);
    expect(down.body.data.condition.operator).toBe('<=');
    const equal = await create(u, { target_price: '300.0' });
    expect(equal.status).toBe(422);
    expect(equal.body.errors).toEqual({ target_price: ['The target price must differ from the current rate (300).'] });
  });
});
