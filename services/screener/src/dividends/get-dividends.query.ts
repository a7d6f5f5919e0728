import { type AssetRef, type GetDividendsReply, MAX_DIVIDENDS_PER_REPLY } from '@invest/contracts';
import type { SqlClient } from '@invest/platform';

type Row = Record<string, unknown>;

/** The dividends of the assets with a record date on or after `from`, soonest first (at most MAX_DIVIDENDS_PER_REPLY). */
export async function getUpcomingDividends(db: SqlClient, q: { refs: readonly AssetRef[]; from: string }): Promise<GetDividendsReply> {
  const rows = await db.query<Row>(
    `select a.id::text, a.type, d.record_date::text, d.value::text, d.currency
     from unnest($1::text[], $2::bigint[]) as u(t, i)
     join assets a on a.id = u.i and a.type = u.t
     join dividends d on d.asset_id = a.id and d.record_date >= $3::date
     order by d.record_date, a.id, d.currency, d.value
     limit $4`,
    [q.refs.map((r) => r.type), q.refs.map((r) => r.id), q.from, MAX_DIVIDENDS_PER_REPLY],
  );
  return {
    data: rows.map((r) => ({ type: String(r.type), id: Number(r.id), record_date: String(r.record_date), value: String(r.value), currency: String(r.currency) })),
  };
}
