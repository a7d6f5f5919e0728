/**
 * Exactly once, enforced by the database, on real Postgres: two evaluations (a sweep and the consumer, or two
 * instances) that read the same state before either commits fire each step once. The second one is held on
 * the notification's row lock until the first commits (seen in pg_locks, not by timing), then finds the row
 * changed and fires nothing. The firing key is unique besides.
 */
import { createLogger, type Db, openDatabase } from '@invest/platform';
import { createTestDatabase } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertsEvaluator } from '../src/evaluation/alerts-evaluator.js';
import { migrations } from '../src/migrations/index.js';

let db: Db;
let drop: () => Promise<void>;
const logger = createLogger('test', 'silent');
const now = new Date();
const evaluator = new AlertsEvaluator({ logger, clock: () => now, maxRateAgeMs: 3_600_000, marketTz: 'Europe/Moscow' });

beforeAll(async () => {
  const t = await createTestDatabase('alerts_once');
  drop = t.drop;
  db = await openDatabase({ url: t.url, migrations, logger });
});
afterAll(async () => {
  await db?.close();
  await drop?.();
});

async function seed(assetId: number, typeId: 2 | 8, value: number, rate: number, change: number): Promise<number> {
  await db.query(
    `insert into latest_rates (asset_type, asset_id, ticker, currency, rate, change_24h, as_of, observed_at) values ('share', $1, $2, 'RUB', $3, $4, $5, $5)
     on conflict (asset_type, asset_id) do update set rate = excluded.rate, change_24h = excluded.change_24h`,
    [assetId, `T${assetId}`, rate, change, now],
  );
  const [row] = await db.query<{ id: string }>(
    `insert into notifications (user_id, notification_type_id, targetable_type, targetable_id, asset_type, operator, value, initial_value, cooldown_minutes)
     values ('u', $1, 'asset', $2, 'share', '>=', $3, $3, $4) returning id::text`,
    [typeId, assetId, value, typeId === 8 ? 60 : null],
  );
  return Number(row!.id);
}

/** Evaluates in a transaction held open, runs `second` meanwhile, and commits the first once `second` waits on a lock. */
async function race(second: (db: Db) => Promise<unknown>) {
  let release!: () => void;
  const hold = new Promise<void>((r) => (release = r));
  let evaluated!: () => void;
  const firstEvaluated = new Promise<void>((r) => (evaluated = r));
  const a = db.transaction(async (tx) => {
    const r = await evaluator.evaluate(tx, { all: true }, ['price-target', 'price-change'], 'first');
    evaluated();
    await hold;
    return r;
  });
  await firstEvaluated;
  const b = second(db);
  // The second evaluation has read the same state and now waits for the row the first one changed.
  const until = Date.now() + 20_000;
  while (Date.now() < until) {
    const [w] = await db.query<{ n: string }>(
      "select count(*)::text as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
    );
    if (Number(w!.n) > 0) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  release();
  return Promise.all([a, b]);
}

const sweep = (d: Db) => d.transaction((tx) => evaluator.evaluate(tx, { all: true }, ['price-target', 'price-change'], 'second'));

describe('a step fires once however many evaluations race', () => {
  it('price-change: two evaluations reading the same threshold fire it once, and the threshold grows once', async () => {
    const id = await seed(1, 8, 5, 100, 6);
    const [a, b] = await race(sweep);
    expect([a, b].map((r) => (r as { fired: number }).fired).sort()).toEqual([0, 1]);
    expect(await db.query('select step_key from notification_firings where notification_id = $1', [id])).toEqual([{ step_key: 'c0:t5' }]);
    const [n] = await db.query<{ initial_value: number }>('select initial_value from notifications where id = $1', [id]);
    expect(n!.initial_value).toBe(10);
    const [events] = await db.query<{ n: string }>("select count(*)::text as n from es_events where type = 'NotificationFired' and data->>'notificationId' = $1", [String(id)]);
    expect(events!.n).toBe('1');
  });

  it('price-target: two evaluations fire it once and leave it inactive', async () => {
    const id = await seed(2, 2, 110, 111, 0);
    await race(sweep);
    expect(await db.query('select step_key from notification_firings where notification_id = $1', [id])).toEqual([{ step_key: 'c0' }]);
    const [n] = await db.query<{ is_active: boolean }>('select is_active from notifications where id = $1', [id]);
    expect(n!.is_active).toBe(false);
  });

  it('refuses a second firing of a step at the database (unique key) even when the row was changed back', async () => {
    const id = await seed(3, 8, 5, 100, 6);
    await sweep(db);
    // As if the state had been rewound (a bug, a restore): the step key is already used, so nothing is recorded twice.
    await db.query('update notifications set initial_value = value, last_triggered_at = null where id = $1', [id]);
    await expect(sweep(db)).rejects.toThrow(/firing key already used/);
    expect(await db.query('select step_key from notification_firings where notification_id = $1', [id])).toEqual([{ step_key: 'c0:t5' }]);
  });
});
