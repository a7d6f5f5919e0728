/**
 * The dividend yield rule. It lives in SQL only (`dividendYieldSql`), because the screener sorts and
 * pages by it in Postgres; its tests run that SQL (dividend-yield.test.ts), not a copy of the rule.
 */

/** Months ahead whose dividends count towards the yield. */
export const DIVIDEND_YIELD_WINDOW_MONTHS = 12;

/** Column expressions the yield needs. */
export interface YieldColumns {
  id: string;
  currency: string;
  price: string;
  dividendsSyncedAt: string;
}

/**
 * Dividend yield in percent, as float8: the dividends whose record date falls within the next 12 months
 * (today inclusive, the same day a year ahead exclusive, so an annual payment counts once; Feb 29 + 12
 * months is Feb 28, as Postgres adds months), divided by the current price × 100. Only dividends in the
 * price's currency count: converting would need FX rates the screener does not keep, and a dividend in
 * another currency is not comparable to the price as is. Null when there is no price (null or ≤ 0), or
 * when the share's dividends were never loaded; 0 when they were and none falls in the window.
 * `todayParam` is the SQL parameter holding today in MARKET_TZ (`YYYY-MM-DD`).
 */
export function dividendYieldSql(c: YieldColumns, todayParam: string): string {
  return `case when ${c.dividendsSyncedAt} is null or ${c.price} is null or ${c.price} <= 0 then null
      else (coalesce((select sum(d.value) from dividends d
                      where d.asset_id = ${c.id} and d.currency = ${c.currency}
                        and d.record_date >= ${todayParam}::date
                        and d.record_date < (${todayParam}::date + interval '${DIVIDEND_YIELD_WINDOW_MONTHS} months')::date), 0)
            / ${c.price} * 100)::float8 end`;
}
