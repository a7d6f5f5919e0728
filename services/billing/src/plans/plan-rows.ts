import type { SqlClient } from '@invest/platform';
import type { Plan } from './plan-catalog.js';

/** Writes the configured plans into `subscription_plans` (prices are configuration; ids and codes are fixed). */
export async function upsertPlans(db: SqlClient, plans: readonly Plan[]): Promise<void> {
  await db.query(
    `insert into subscription_plans (id, code, title, price, currency, period, paid)
     select * from unnest($1::int[], $2::text[], $3::text[], $4::numeric[], $5::text[], $6::text[], $7::bool[])
     on conflict (id) do update set code = excluded.code, title = excluded.title, price = excluded.price,
       currency = excluded.currency, period = excluded.period, paid = excluded.paid`,
    [plans.map((p) => p.id), plans.map((p) => p.code), plans.map((p) => p.title), plans.map((p) => p.price), plans.map((p) => p.currency), plans.map((p) => p.period), plans.map((p) => p.paid)],
  );
}
