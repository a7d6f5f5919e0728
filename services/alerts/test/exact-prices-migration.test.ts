/**
 * Migration 0012 turns the prices stored as doubles (targets, steps, latest rates) into `numeric`: every existing
 * row keeps the decimal it showed (a double's shortest round-trip text, as JavaScript writes it), and the trigger
 * and view made again around the change still do their work.
 */
import { type Db, openDatabase } from '@invest/platform/db/database';
import { useTestDatabase } from '@invest/platform/testing/index';
import { expect, it } from 'vitest';
import { migrations } from '../src/migrations/index.js';

let db: Db;
const before = migrations.slice(0, migrations.findIndex((m) => m.name === '0012-exact-prices'));
useTestDatabase('alerts_exact_prices', before, (opened) => (db = opened));

it('keeps every stored price as the decimal it was, and the candidate index trigger and the conditions view work on', async () => {
  const rates = [0.1 + 0.2, 1e-7, 1234567.891, 0.00000039];
  for (const [i, rate] of rates.entries()) {
    await db.query(`insert into latest_rates (asset_type, asset_id, ticker, rate, change_24h, as_of, observed_at) values ('share', $1, 'T', $2, 1.5, now(), now())`, [i + 1, rate]);
  }
  const [target] = await db.query<{ id: string }>(
    `insert into notifications (user_id, notification_type_id, targetable_type, targetable_id, asset_type, operator, value, initial_value)
     values ('u', 2, 'asset', 1, 'share', '>=', 123456789.12345, 123456789.12345) returning id::text`,
  );
  const [change] = await db.query<{ id: string }>(
    `insert into notifications (user_id, notification_type_id, targetable_type, targetable_id, asset_type, operator, value, initial_value, cooldown_minutes)
     values ('u', 8, 'asset', 1, 'share', '>=', 5, 15, 60) returning id::text`,
  );

  const migrated = await openDatabase({ url: db.url, migrations });
  try {
    const stored = await migrated.query<{ rate: string }>('select rate from latest_rates order by asset_id');
    expect(stored.map((r) => r.rate)).toEqual(['0.30000000000000004', '0.0000001', '1234567.891', '0.00000039']);
    expect(await migrated.query('select notification_id::text, value, initial_value from notification_conditions order by notification_id')).toEqual([
      { notification_id: target!.id, value: '123456789.12345', initial_value: '123456789.12345' },
      { notification_id: change!.id, value: '5', initial_value: '15' },
    ]);
    // A threshold coming down widens the candidates: the trigger tells the index.
    const changes = async () => (await migrated.query('select 1 from index_changes where notification_id = $1', [change!.id])).length;
    const created = await changes();
    await migrated.query('update notifications set initial_value = value where id = $1', [change!.id]);
    expect(await changes()).toBe(created + 1);
  } finally {
    await migrated.close();
  }
});
