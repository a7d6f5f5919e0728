import type { SqlClient } from '@invest/platform';

/** What a `shares` row holds beyond the asset itself. */
export interface ShareRowInput {
  /** The asset's ticker (SECID): the share row joins its asset by it. */
  ticker: string;
  categoryId: number;
  country: { code: string; name: string } | null;
  marketCap: number | null;
  tradingVolume: number | null;
  lotSize: number | null;
  listLevel: number | null;
  issueSize: number | null;
}

/**
 * Inserts the `shares` rows (and any countries they name) of share assets that already exist; rows that
 * exist are left as they are (the stats job owns market cap and volume after creation).
 */
export async function insertShareRows(tx: SqlClient, shares: readonly ShareRowInput[]): Promise<void> {
  if (shares.length === 0) return;
  const countries = new Map(shares.flatMap((s) => (s.country ? [[s.country.code, s.country.name] as const] : [])));
  if (countries.size) {
    await tx.query(
      `insert into countries (code, name) select x.code, x.name from jsonb_to_recordset($1::jsonb) as x(code text, name text)
       on conflict (code) do nothing`,
      [JSON.stringify([...countries].map(([code, name]) => ({ code, name })))],
    );
  }
  await tx.query(
    `insert into shares (asset_id, category_id, country_code, market_cap, trading_volume, lot_size, list_level, issue_size)
     select a.id, x.category_id, x.country_code, x.market_cap, x.trading_volume, x.lot_size, x.list_level, x.issue_size
     from jsonb_to_recordset($1::jsonb) as x(ticker text, category_id int, country_code text, market_cap numeric,
                                            trading_volume numeric, lot_size int, list_level smallint, issue_size bigint)
     join assets a on a.type = 'share' and a.ticker = x.ticker
     on conflict (asset_id) do nothing`,
    [
      JSON.stringify(
        shares.map((s) => ({
          ticker: s.ticker,
          category_id: s.categoryId,
          country_code: s.country?.code ?? null,
          market_cap: s.marketCap,
          trading_volume: s.tradingVolume,
          lot_size: s.lotSize,
          list_level: s.listLevel,
          issue_size: s.issueSize,
        })),
      ),
    ],
  );
}
