export { createScreenerApp, type ScreenerApp, type ScreenerAppOptions } from './screener.app.js';
export { buildListSharesSql, listShares, escapeLike, normalizeSearch, type ListSharesResultRow, type SqlStatement } from './shares/list-shares.query.js';
export { dividendYield, dividendWindow, type DividendRecord, type DividendYieldInput } from './shares/dividend-yield.js';
export { marketToday } from './market-data/market-time.js';
export * from './market-data/moex-iss.parser.js';
export { countryFromIsin, countryName } from './market-data/country.js';
export { migrations } from './migrations/index.js';
