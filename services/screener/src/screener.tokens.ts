/** DI token of the service's `Db`. */
export const SCREENER_DB = Symbol('SCREENER_DB');
/** DI token of the market clock (today in MARKET_TZ). */
export const MARKET_CLOCK = Symbol('MARKET_CLOCK');

/** What "today" is for the market: the calendar date in MARKET_TZ. */
export interface MarketClock {
  readonly timeZone: string;
  /** `YYYY-MM-DD` in the market time zone. */
  today(): string;
}
/** DI token of the CustomAssetsService. */
export const CUSTOM_ASSETS = Symbol('CUSTOM_ASSETS');
/** DI token of the screener page cache (CoalescingCache<ListSharesReply>). */
export const LIST_SHARES_CACHE = Symbol('LIST_SHARES_CACHE');
