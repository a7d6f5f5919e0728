/**
 * A fresh start of the demo, as `npm start` does it: the screener loads the demo shares (a 2024 capture) into an
 * empty database, with its jobs on and the demo market (the fake providers in live mode) as MOEX ISS. The rates
 * jobs run at once, so the screener answers with today's prices, and the demo's daily closes give every priced share
 * its 7-day change from the first rate on. Checked through the gateway, against the closes in the database.
 */
import { createLogger } from '@invest/platform';
import { createTestDatabase, testNatsUrl, uniqueName } from '@invest/platform/testing/index';
import { createGatewayApp, type GatewayApp } from '@invest/gateway/gateway.app';
import { createScreenerApp, type ScreenerApp } from '@invest/screener/screener.app';
import { FakeProviders } from '@invest/screener/testing/fake-providers';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PageBody } from '../support/screener-stack.js';

let fake: FakeProviders;
let screener: ScreenerApp;
let gw: GatewayApp;
let base: string;
let sql: pg.Client;
let drop: () => Promise<void>;
const startedAt = Date.now();

beforeAll(async () => {
  fake = await FakeProviders.start({ live: true, recordRequests: false });
  const db = await createTestDatabase('scr_demo_start');
  drop = db.drop;
  const busPrefix = `${uniqueName('scr_demo_start')}.`;
  screener = await createScreenerApp({
    databaseUrl: db.url,
    natsUrl: testNatsUrl(),
    busPrefix,
    loadDemoData: true,
    jobs: true,
    providers: { MOEX_ISS_URL: fake.moexUrl, COINGECKO_URL: fake.coingeckoUrl, MOEX_ISS_MIN_INTERVAL_MS: 0 },
    logger: createLogger('screener', 'silent'),
  });
  gw = await createGatewayApp({ natsUrl: testNatsUrl(), busPrefix, readyServices: ['screener'], logger: createLogger('gateway', 'silent') });
  base = await gw.listen(0, '127.0.0.1');
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
}, 120_000);

afterAll(async () => {
  await gw?.close();
  await screener?.close();
  await sql?.end();
  await fake?.close();
  await drop?.();
});

async function firstPage(): Promise<PageBody> {
  const res = await fetch(`${base}/api/public/shares?per_page=100`);
  expect(res.status).toBe(200);
  return (await res.json()) as PageBody;
}

it('shows today’s prices with a 7-day change soon after a fresh start, without waiting for the 15-minute run', async () => {
  // Seconds, not the quarter hour of the full run's schedule: it ran at start.
  await expect
    .poll(async () => (await firstPage()).data.filter((r) => r.current_rate !== null && (r.price_change_percentage_7d === null || Date.parse(r.updated_at) < startedAt - 60_000)).length, {
      timeout: 60_000,
      interval: 500,
    })
    .toBe(0);
  const { data } = await firstPage();
  const priced = data.filter((r) => r.current_rate !== null);
  expect(priced.length).toBeGreaterThan(50);
  expect(data.some((r) => r.updated_at.startsWith('2024'))).toBe(false);

  // The change is the price over the latest close 7 to 13 days back, and that close is the demo's.
  const closes = await sql.query<{ id: string; close: string; trade_date: string; days: number }>(
    `select distinct on (c.asset_id) c.asset_id::text as id, c.close::text as close, to_char(c.trade_date, 'YYYY-MM-DD') as trade_date,
            ((now() at time zone 'Europe/Moscow')::date - c.trade_date) as days
     from asset_daily_closes c
     where c.trade_date <= (now() at time zone 'Europe/Moscow')::date - 7 and c.trade_date > (now() at time zone 'Europe/Moscow')::date - 14
     order by c.asset_id, c.trade_date desc`,
  );
  const base7 = new Map(closes.rows.map((c) => [Number(c.id), Number(c.close)]));
  for (const row of priced) {
    const close = base7.get(row.id);
    expect(close, row.asset).toBeGreaterThan(0);
    expect(row.price_change_percentage_7d!, row.asset).toBeCloseTo((row.current_rate! / close! - 1) * 100, 2);
  }
  expect(closes.rows.every((c) => c.days === 7)).toBe(true);
  // A demo walk, not a flat line.
  expect(new Set(priced.map((r) => r.price_change_percentage_7d)).size).toBeGreaterThan(priced.length / 2);
}, 90_000);
