import { readFile } from 'node:fs/promises';
import type { RateChange } from '@invest/contracts';
import type { Db, Logger, SqlClient, Tx } from '@invest/platform';
import { MAIN_SHARE_BOARDS, parseMoexShares } from '../market-data/moex-iss.parser.js';
import { screenerDataFile } from '../package-root.js';
import { lockRateWrites, recordRatesUpdated } from '../rates/rates-updated.recorder.js';
import { insertShareRows } from '../shares/share-rows.js';
import { DEMO_CLOSE_DAYS, demoCloses } from './demo-closes.js';
import { demoDividendsFileSchema, placeDemoDividends } from './demo-dividends.js';
import { type DemoShare, demoSharesFromQuotes } from './demo-shares.js';

/** Name of the one-time load in `data_loads`: it runs once per database, whatever the number of restarts. */
export const DEMO_DATA_LOAD = 'demo:moex-shares-2024-02-15';
/**
 * Name of the one-time load of the demo daily closes (demo-closes.ts). Its own marker, so a database that had the
 * demo shares before the closes existed gets them on its next start too.
 */
export const DEMO_CLOSES_LOAD = 'demo:daily-closes';
/** Real MOEX ISS capture (`/iss/engines/stock/markets/shares/securities.json`, 2024-02-15 ~18:09 MSK). */
export const DEMO_SHARES_FILE = 'moex-shares-2024-02-15.json';
/** Hand-made demo dividends (see its `notice`). */
export const DEMO_DIVIDENDS_FILE = 'demo-dividends.json';

export interface LoadDemoDataOptions {
  /** Market date (`YYYY-MM-DD` in MARKET_TZ) the demo dividends are placed after. */
  today: string;
  logger?: Logger;
  /** Overrides for tests; default: the package's `data/` files. */
  sharesFile?: string;
  dividendsFile?: string;
}

export interface LoadDemoDataResult {
  /** False when the demo data had already been loaded into this database. */
  loaded: boolean;
  shares: number;
  dividends: number;
  skipped: number;
  /** Demo daily closes written by this call (0 when they were already there). */
  closes: number;
}

const readJson = async (path: string): Promise<unknown> => JSON.parse(await readFile(path, 'utf8'));

async function alreadyLoaded(db: SqlClient, name = DEMO_DATA_LOAD): Promise<boolean> {
  return (await db.query('select 1 from data_loads where name = $1', [name])).length > 0;
}

/**
 * Loads the demo shares (TQBR and TQPI shares of the MOEX capture, with their rates, capitalisation,
 * turnover, categories and countries) and demo dividends, once: a marker row in `data_loads`, written in the
 * same transaction under an advisory lock, makes later starts (and concurrent instances) skip it, so data
 * changed since (live rates) is kept and nothing is duplicated.
 */
export async function loadDemoData(db: Db, opts: LoadDemoDataOptions): Promise<LoadDemoDataResult> {
  const none = { loaded: false, shares: 0, dividends: 0, skipped: 0 };
  if (await alreadyLoaded(db)) {
    opts.logger?.debug({ load: DEMO_DATA_LOAD }, 'demo data already loaded');
    const closes = await loadDemoCloses(db, opts);
    // The one line a later start says at info, and only when it loaded something (a quiet start otherwise).
    if (closes) opts.logger?.info({ load: DEMO_CLOSES_LOAD, closes }, 'demo data loaded');
    return { ...none, closes };
  }
  const [sharesDoc, dividendsDoc] = await Promise.all([
    readJson(opts.sharesFile ?? screenerDataFile(DEMO_SHARES_FILE)),
    readJson(opts.dividendsFile ?? screenerDataFile(DEMO_DIVIDENDS_FILE)),
  ]);
  const quotes = parseMoexShares(sharesDoc, { boards: MAIN_SHARE_BOARDS });
  const dividendsFile = demoDividendsFileSchema.parse(dividendsDoc);
  const dividends = placeDemoDividends(dividendsFile, opts.today);
  const knownDividendTickers = [...new Set(dividendsFile.dividends.map((d) => d.ticker))];

  const result = await db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock(hashtext($1))', [DEMO_DATA_LOAD]);
    if (await alreadyLoaded(tx)) return none;

    const categories = await tx.query<{ id: number; moex_sec_type: string }>(
      'select id, moex_sec_type from share_categories where moex_sec_type is not null',
    );
    const { shares, skipped } = demoSharesFromQuotes(quotes, new Map(categories.map((c) => [c.moex_sec_type, c.id])));
    await insertShares(tx, shares);

    const inserted = await tx.query<{ asset_id: string }>(
      `insert into dividends (asset_id, record_date, value, currency, source)
       select a.id, x.record_date, x.value, x.currency, 'demo'
       from jsonb_to_recordset($1::jsonb) as x(ticker text, record_date date, value numeric, currency text)
       join assets a on a.type = 'share' and a.ticker = x.ticker
       on conflict (asset_id, record_date, value, currency) do nothing
       returning asset_id`,
      [JSON.stringify(dividends.map((d) => ({ ticker: d.ticker, record_date: d.recordDate, value: d.value, currency: d.currency })))],
    );
    // These shares' dividends are now known (possibly none): their yield is a number, not null.
    const synced = await tx.query<{ ticker: string }>(
      `update shares s set dividends_synced_at = now()
       from assets a
       where a.id = s.asset_id and a.type = 'share' and a.ticker = any($1::text[])
       returning a.ticker`,
      [knownDividendTickers],
    );
    const missing = knownDividendTickers.filter((t) => !synced.some((s) => s.ticker === t));
    if (missing.length) opts.logger?.warn({ tickers: missing }, 'demo dividends name tickers that are not among the demo shares');

    // Other services (portfolios' price table, alerts) learn the seeded rates like any others: one RatesUpdated.
    const rates = await recordSeededRates(tx);

    const details = { shares: shares.length, dividends: inserted.length, skipped: skipped.length, today: opts.today, rates };
    await tx.query('insert into data_loads (name, details) values ($1, $2::jsonb)', [DEMO_DATA_LOAD, JSON.stringify(details)]);
    if (skipped.length) opts.logger?.debug({ skipped }, 'demo data: main-board securities that are not shares were skipped');
    return { loaded: true, shares: shares.length, dividends: inserted.length, skipped: skipped.length };
  });
  if (result.loaded) {
    // Fresh tables have no planner statistics until autovacuum comes by; without them the list query gets
    // nested-loop plans that rescan assets per share.
    await db.query('analyze countries, assets, shares, dividends');
  }
  const closes = await loadDemoCloses(db, opts);
  if (result.loaded) opts.logger?.info({ load: DEMO_DATA_LOAD, ...result, closes }, 'demo data loaded');
  return { ...result, closes };
}

/**
 * Seeds the demo daily closes of the DEMO_CLOSE_DAYS days before `today` for every share with a price, once per
 * database (marker DEMO_CLOSES_LOAD, same pattern as the shares): the 7-day change then has its base from the first
 * rate of the day on. A close already stored (a real roll-over) is kept. Returns the closes written.
 */
async function loadDemoCloses(db: Db, opts: LoadDemoDataOptions): Promise<number> {
  if (await alreadyLoaded(db, DEMO_CLOSES_LOAD)) return 0;
  const written = await db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock(hashtext($1))', [DEMO_CLOSES_LOAD]);
    if (await alreadyLoaded(tx, DEMO_CLOSES_LOAD)) return 0;
    // Under the rates' lock: a rate write reads the closes and moves the bases, it must not interleave with this.
    await lockRateWrites(tx);
    const shares = await tx.query<{ id: string; ticker: string; rate: string }>(
      `select id::text, ticker, current_rate::text as rate from assets where type = 'share' and current_rate > 0 order by id`,
    );
    const closes = demoCloses(
      shares.map((s) => ({ assetId: Number(s.id), ticker: s.ticker, rate: Number(s.rate) })),
      opts.today,
    );
    const rows = await tx.query(
      `insert into asset_daily_closes (asset_id, trade_date, close)
       select x.asset_id, x.trade_date, x.close
       from unnest($1::bigint[], $2::date[], $3::numeric[]) as x(asset_id, trade_date, close)
       on conflict (asset_id, trade_date) do nothing
       returning asset_id`,
      [closes.map((c) => c.assetId), closes.map((c) => c.tradeDate), closes.map((c) => c.close)],
    );
    // A base found missing earlier today is kept for the day (close_7d_base_for): forget it so the next rate
    // looks again. Without the day the writer falls back to the rate's own market day, the same day.
    await tx.query(`update assets set close_7d_base_for = null where type = 'share' and close_7d_base is null and close_7d_base_for is not null`);
    await tx.query('insert into data_loads (name, details) values ($1, $2::jsonb)', [
      DEMO_CLOSES_LOAD,
      JSON.stringify({ today: opts.today, days: DEMO_CLOSE_DAYS, shares: shares.length, closes: rows.length }),
    ]);
    return rows.length;
  });
  return written;
}

/** Records the demo shares' rates as one RatesUpdated (source `demo-data`), in the load's transaction. */
async function recordSeededRates(tx: Tx): Promise<number> {
  await lockRateWrites(tx);
  const rows = await tx.query<{ id: string; ticker: string; currency: string; current_rate: string; ch24: string | null; as_of: string }>(
    `select id::text, ticker, currency, current_rate::text, price_change_percentage_24h::text as ch24,
            to_char(coalesce(rate_updated_at, now()) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as as_of
     from assets where type = 'share' and current_rate is not null order by assets.id`,
  );
  const changes: RateChange[] = rows.map((r) => ({
    assetType: 'share',
    assetId: Number(r.id),
    ticker: r.ticker,
    currency: r.currency,
    rate: Number(r.current_rate),
    priceChangePercentage24h: r.ch24 === null ? null : Number(r.ch24),
    asOf: r.as_of,
  }));
  await recordRatesUpdated(tx, 'share', DEMO_DATA_LOAD, changes);
  return changes.length;
}

async function insertShares(tx: SqlClient, shares: readonly DemoShare[]): Promise<void> {
  const rows = JSON.stringify(
    shares.map((s) => ({
      ticker: s.ticker,
      board: s.board,
      isin: s.isin,
      name: s.name,
      short_name: s.shortName,
      latin_name: s.latinName,
      currency: s.currency,
      current_rate: s.currentRate,
      price_source: s.priceSource,
      change_24h: s.priceChangePercentage24h,
      rate_updated_at: s.rateUpdatedAt,
    })),
  );
  await tx.query(
    `insert into assets (type, ticker, board, isin, name, short_name, latin_name, currency, current_rate,
                         price_change_percentage_24h, price_source, rate_updated_at)
     select 'share', x.ticker, x.board, x.isin, x.name, x.short_name, x.latin_name, x.currency, x.current_rate,
            x.change_24h, x.price_source, x.rate_updated_at
     from jsonb_to_recordset($1::jsonb) as x(ticker text, board text, isin text, name text, short_name text, latin_name text,
                                            currency text, current_rate numeric, change_24h numeric, price_source text,
                                            rate_updated_at timestamptz)
     on conflict (type, ticker) where type not in ('token', 'custom_asset') do nothing`,
    [rows],
  );
  await insertShareRows(tx, shares);
}
