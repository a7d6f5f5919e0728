import type { AssetRef, AssetSummary, AssetType, Deal, DealType } from '@invest/contracts';
import { Decimal, type SqlClient } from '@invest/platform';
import { iso, num, numOrNull, strOrNull } from '../common/sql-values.js';
import type { DealInput } from './deal.types.js';
import type { HoldingDeal } from './holding-timeline.js';

/** The quantity held, over deals grouped by portfolio and asset (columns unqualified): a position is open when it is > 0. */
export const OPEN_QUANTITY = `sum(case type when 'buy' then quantity when 'sell' then -quantity else 0 end)`;

type Row = Record<string, unknown>;

const DEAL_COLUMNS = `d.id::text, d.portfolio_id::text, d.type, d.asset_type, d.asset_id::text, d.quantity::text, d.price::text,
  d.commission::text, d.date::text as date, d.created_at,
  a.ticker, a.name as asset_name, a.currency as asset_currency, a.current_rate, a.price_change_24h`;

export function assetSummaryOf(r: Row): AssetSummary | null {
  if (r.ticker === null || r.ticker === undefined) return null;
  return {
    type: r.asset_type as AssetType,
    id: num(r.asset_id),
    ticker: String(r.ticker),
    name: strOrNull(r.asset_name),
    currency: strOrNull(r.asset_currency),
    current_rate: numOrNull(r.current_rate),
    price_change_percentage_24h: numOrNull(r.price_change_24h),
  };
}

/** A numeric column read as text (`::text`), in canonical form. */
const decimalText = (v: unknown): string => Decimal.of(String(v)).toString();

function toDeal(r: Row): Deal {
  const quantity = Decimal.of(String(r.quantity));
  const price = Decimal.of(String(r.price));
  return {
    id: num(r.id),
    portfolio_id: num(r.portfolio_id),
    type: r.type as DealType,
    assetable: { type: r.asset_type as AssetType, id: num(r.asset_id) },
    asset: assetSummaryOf(r),
    quantity: quantity.toString(),
    price: price.toString(),
    commission: decimalText(r.commission),
    amount: quantity.times(price).round(8).toString(),
    date: String(r.date),
    created_at: iso(r.created_at),
  };
}

export async function findDeal(db: SqlClient, portfolioId: number, dealId: number): Promise<Deal | undefined> {
  const [row] = await db.query<Row>(
    `select ${DEAL_COLUMNS} from deals d left join assets a on a.asset_type = d.asset_type and a.asset_id = d.asset_id
     where d.portfolio_id = $1 and d.id = $2`,
    [portfolioId, dealId],
  );
  return row ? toDeal(row) : undefined;
}

/** A page of a portfolio's deals, newest date first (then newest recorded first). */
export async function listDeals(db: SqlClient, portfolioId: number, page: number, perPage: number): Promise<{ rows: Deal[]; total: number }> {
  const [count] = await db.query<{ n: string }>('select count(*)::text as n from deals where portfolio_id = $1', [portfolioId]);
  const rows = await db.query<Row>(
    `select ${DEAL_COLUMNS} from deals d left join assets a on a.asset_type = d.asset_type and a.asset_id = d.asset_id
     where d.portfolio_id = $1 order by d.date desc, d.id desc limit $2 offset $3`,
    [portfolioId, perPage, (page - 1) * perPage],
  );
  return { rows: rows.map(toDeal), total: num(count?.n ?? 0) };
}

/** Every deal of one asset in a portfolio, as the holding timeline needs them. */
export async function assetDeals(db: SqlClient, portfolioId: number, asset: AssetRef): Promise<HoldingDeal[]> {
  const rows = await db.query<Row>(
    `select id::text, type, quantity::text, date::text as date from deals
     where portfolio_id = $1 and asset_type = $2 and asset_id = $3`,
    [portfolioId, asset.type, asset.id],
  );
  return rows.map((r) => ({ id: num(r.id), type: r.type as DealType, quantity: Decimal.of(String(r.quantity)), date: String(r.date) }));
}

export async function insertDeal(
  tx: SqlClient,
  portfolioId: number,
  d: { type: DealType; asset: AssetRef; quantity: string; price: string; commission: string; date: string },
): Promise<number> {
  const [row] = await tx.query<{ id: string }>(
    `insert into deals (portfolio_id, asset_type, asset_id, type, quantity, price, commission, date)
     values ($1, $2, $3, $4, $5::numeric, $6::numeric, $7::numeric, $8::date) returning id::text`,
    // Decimal text as the contract parsed it: numeric keeps exactly what was sent.
    [portfolioId, d.asset.type, d.asset.id, d.type, d.quantity, d.price, d.commission, d.date],
  );
  return num(row!.id);
}

/**
 * `loadDealsForStatistics` for the value history: only what it reads. The version and currency come once (in one
 * row) instead of on every deal, and the commission is left out (zero: the value and invested amount do not count
 * it), so 10,000 deals are 7 columns each to parse instead of 10. Still one statement, one snapshot.
 */
export async function loadDealsForHistory(
  db: SqlClient,
  portfolioId: number,
): Promise<{ version: number; currencyCode: string; deals: DealInput[] } | undefined> {
  const rows = await db.query<Row>(
    `select p.stats_version::text as version, p.currency_code, null::text as id, null::text as type, null::text as asset_type, null::text as asset_id,
       null::text as quantity, null::text as price, null::text as date
     from portfolios p where p.id = $1
     union all
     select null, null, d.id::text, d.type, d.asset_type, d.asset_id::text, d.quantity::text, d.price::text, d.date::text
     from deals d where d.portfolio_id = $1`,
    [portfolioId],
  );
  let head: Row | undefined;
  const deals: DealInput[] = [];
  for (const r of rows) {
    // The portfolio's row (the one with a version) need not come first.
    if (r.version !== null) {
      head = r;
      continue;
    }
    deals.push(dealInputOf(r, Decimal.ZERO));
  }
  if (!head) return undefined;
  return { version: num(head.version), currencyCode: String(head.currency_code), deals };
}

/** A deal row of `loadDealsForHistory` and `loadDealsForStatistics`, with the commission each reads. */
function dealInputOf(r: Row, commission: Decimal): DealInput {
  return {
    id: num(r.id),
    type: r.type as DealType,
    asset: { type: r.asset_type as AssetType, id: num(r.asset_id) },
    quantity: Decimal.of(String(r.quantity)),
    price: Decimal.of(String(r.price)),
    commission,
    date: String(r.date),
  };
}

/**
 * All deals of a portfolio, its statistics version and its currency, read in ONE statement (one
 * snapshot), so the version describes exactly these deals and this currency. Undefined when the
 * portfolio does not exist.
 */
export async function loadDealsForStatistics(
  db: SqlClient,
  portfolioId: number,
): Promise<{ version: number; currencyCode: string; deals: DealInput[] } | undefined> {
  const rows = await db.query<Row>(
    `select p.stats_version::text, p.currency_code, d.id::text, d.type, d.asset_type, d.asset_id::text, d.quantity::text, d.price::text,
       d.commission::text, d.date::text as date
     from portfolios p left join deals d on d.portfolio_id = p.id
     where p.id = $1`,
    [portfolioId],
  );
  if (rows.length === 0) return undefined;
  const deals: DealInput[] = [];
  for (const r of rows) {
    if (r.id === null || r.id === undefined) continue;
    deals.push(dealInputOf(r, Decimal.of(String(r.commission))));
  }
  return { version: num(rows[0]!.stats_version), currencyCode: String(rows[0]!.currency_code), deals };
}
