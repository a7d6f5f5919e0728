import { type AssetRef, type GetClosesReply, MAX_CLOSES_PER_REPLY, packCloses } from '@invest/contracts';
import type { SqlClient } from '@invest/platform';

type Row = Record<string, unknown>;

/**
 * The closes of the assets from `from` to `to`, plus each one's last close before `from`, ordered by asset id and
 * date, at most MAX_CLOSES_PER_REPLY of them after `after`. The current market day's close is the asset's current
 * rate (the roll-over stores it in `asset_daily_closes` when a later day's first rate arrives), so it is added for
 * the rate's own market day when that day has no stored row. `empty` lists the assets asked for that have no close
 * stored at all (before or in the range): the ones a backfill may fill.
 */
export async function getCloses(
  db: SqlClient,
  q: { refs: readonly AssetRef[]; from: string; to: string; after?: { asset_id: number; date: string } | undefined; marketTz: string },
): Promise<{ reply: Omit<GetClosesReply, 'backfilling'>; empty: AssetRef[] }> {
  const types = q.refs.map((r) => r.type);
  const ids = q.refs.map((r) => r.id);
  // Read before the closes: a backfill committing in between then shows as closes and a claim to ask again, never as
  // an asset that is complete without them. Only the first page says it (a later page starts after some asset).
  const empty = q.after
    ? []
    : (
        await db.query<Row>(
          `select a.id::text, a.type from unnest($1::text[], $2::bigint[]) as u(t, i) join assets a on a.id = u.i and a.type = u.t
           where not exists (select 1 from asset_daily_closes c where c.asset_id = a.id)`,
          [types, ids],
        )
      ).map((r) => ({ type: r.type as AssetRef['type'], id: Number(r.id) }));
  const rows = await db.query<Row>(
    `with asked as (
       select a.id, a.type, a.current_rate, (a.rate_updated_at at time zone $5)::date as rate_day
       from unnest($1::text[], $2::bigint[]) as u(t, i) join assets a on a.id = u.i and a.type = u.t
       where $6::bigint is null or a.id >= $6
     ), closes as (
       -- Each part skips what an earlier page answered, so a page reads only the rows after it.
       select c.asset_id, c.trade_date, c.close from asked
       join asset_daily_closes c on c.asset_id = asked.id and c.trade_date between $3::date and $4::date
         and ($6::bigint is null or (c.asset_id, c.trade_date) > ($6::bigint, $7::date))
       union all
       select asked.id, asked.rate_day, asked.current_rate from asked
       where asked.current_rate > 0 and asked.rate_day between $3::date and $4::date
         and ($6::bigint is null or (asked.id, asked.rate_day) > ($6::bigint, $7::date))
         and not exists (select 1 from asset_daily_closes c where c.asset_id = asked.id and c.trade_date = asked.rate_day)
       union all
       select asked.id, b.trade_date, b.close from asked
       cross join lateral (select c.trade_date, c.close from asset_daily_closes c
         where c.asset_id = asked.id and c.trade_date < $3::date order by c.trade_date desc limit 1) b
       where $6::bigint is null or (asked.id, b.trade_date) > ($6::bigint, $7::date)
     )
     select c.asset_id::text, asked.type, c.trade_date::text as date, c.close::text from closes c join asked on asked.id = c.asset_id
     order by c.asset_id, c.trade_date
     limit $8`,
    [types, ids, q.from, q.to, q.marketTz, q.after?.asset_id ?? null, q.after?.date ?? null, MAX_CLOSES_PER_REPLY + 1],
  );
  const more = rows.length > MAX_CLOSES_PER_REPLY;
  const kept = more ? rows.slice(0, MAX_CLOSES_PER_REPLY) : rows;
  const byAsset: { type: string; id: number; dates: string[]; closes: string[] }[] = [];
  for (const r of kept) {
    const id = Number(r.asset_id);
    let last = byAsset.at(-1);
    if (last?.id !== id) byAsset.push((last = { type: String(r.type), id, dates: [], closes: [] }));
    last.dates.push(String(r.date));
    last.closes.push(String(r.close));
  }
  const data = byAsset.map(({ type, id, dates, closes }) => ({ type, id, ...packCloses(dates, closes) }));
  const lastRow = kept.at(-1);
  const next_after = more && lastRow ? { asset_id: Number(lastRow.asset_id), date: String(lastRow.date) } : null;
  return { reply: { data, next_after }, empty };
}
