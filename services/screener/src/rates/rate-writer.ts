import { type AssetType, MAX_RATE_TIME_AHEAD_MS, type RateChange } from '@invest/contracts';
import type { Db, Tx } from '@invest/platform/db/database';
import { sqlArray } from '@invest/platform/db/sql-array';
import type { Logger } from '@invest/platform/logging/logger';
import { dateInZone } from '@invest/platform/time/zoned-time';
import { insertShareRows } from '../shares/share-rows.js';
import { lockRateWrites, recordRatesUpdated } from './rates-updated.recorder.js';

/** What only some asset types carry; written to their sibling table. */
export type AssetDetails =
  | {
      kind: 'share';
      categoryId: number;
      country: { code: string; name: string } | null;
      lotSize: number | null;
      listLevel: number | null;
      issueSize: number | null;
      marketCap: number | null;
      tradingVolume: number | null;
    }
  | { kind: 'bond'; faceValue: number | null; faceUnit: string | null; maturityDate: string | null }
  | { kind: 'token'; marketCap: number | null; totalVolume: number | null }
  | { kind: 'none' };

/** One asset's fresh rate from a provider. */
export interface RateInput {
  /** The provider key: SECID (= ticker) for MOEX, the coin id for tokens. */
  key: string;
  ticker: string;
  name: string;
  shortName?: string | null;
  latinName?: string | null;
  isin?: string | null;
  board?: string | null;
  currency: string;
  /** Money per unit; never null (a row without a price is skipped before it gets here). */
  rate: number;
  quotedPrice?: number | null;
  priceSource: string;
  /** Null: the provider did not say; the stored value is kept. */
  priceChangePercentage24h: number | null;
  /** The provider's 7-day change; when null it is computed from the daily closes. */
  priceChangePercentage7d?: number | null;
  /** When the provider says the rate was valid. */
  asOf: Date;
  details?: AssetDetails;
}

export interface RateBatch {
  assetType: AssetType;
  /** The job that produced it (`get:assetRates`), recorded in the event. */
  source: string;
  items: readonly RateInput[];
  /** Create assets the screener does not know yet (full refreshes); otherwise unknown keys are skipped. */
  insertMissing: boolean;
}

export interface RateBatchResult {
  /** Assets whose rate or 24h change changed (each is in the RatesUpdated event). */
  changed: RateChange[];
  /** Assets created by this batch. */
  inserted: number;
  /** Items not written, with the reason. */
  skipped: { key: string; reason: string }[];
  events: number;
}

interface UpdatedRow {
  id: string;
  key: string;
  ticker: string;
  currency: string;
  current_rate: string;
  price_change_percentage_24h: string | null;
  /** The item's time (ISO, milliseconds, as the event carries it). */
  as_of: string;
  changed: boolean;
}

/** Which column holds the provider key of a type (a whitelist: never user input). */
const keyColumn = (type: AssetType) => (type === 'token' ? 'source_id' : 'ticker');

const num = (v: string | null): number | null => (v === null ? null : Number(v));

/**
 * How far ahead of the writer's clock a quote time may be (`MAX_RATE_TIME_AHEAD_MS`, which consumers hold rates to
 * as well). A quote dated later than that is skipped, not clamped to now: clamping would still refuse the correct
 * ISS quotes (15 minutes delayed, so dated before now) until the clock caught up, under a price whose time was
 * wrong. The stored rate stays; the next correct quote lands.
 */
export const MAX_QUOTE_TIME_AHEAD_MS = MAX_RATE_TIME_AHEAD_MS;

/**
 * Writes one provider batch in ONE transaction: creates missing assets (if asked), updates rates where the
 * provider's data is at least as new as the stored one (and not dated ahead of the clock), keeps the previous
 * 24h change where the provider gives none, stores the day's close, computes the 7-day change from the close 7
 * days back (null without one: a change measured weeks ago is not this week's), and records ONE
 * RatesUpdated event with the assets whose rate or 24h change actually changed. Unchanged rows are not
 * rewritten and publish nothing.
 */
export async function writeRateBatch(
  db: Db,
  batch: RateBatch,
  opts: {
    marketTz: string;
    logger?: Logger;
    /** The caller's clock (the job passes when it fetched the response); quote times far beyond it are not trusted. */
    now?: Date;
  },
): Promise<RateBatchResult> {
  const empty: RateBatchResult = { changed: [], inserted: 0, skipped: [], events: 0 };
  if (batch.items.length === 0) return empty;
  const timely = notFromTheFuture(batch.items, (opts.now ?? new Date()).getTime() + MAX_QUOTE_TIME_AHEAD_MS);
  if (timely.unusable.length) {
    opts.logger?.warn(
      { source: batch.source, assetType: batch.assetType, keys: timely.unusable.slice(0, 20).map((u) => u.key), count: timely.unusable.length },
      'quote time ahead of the clock; quotes skipped, stored rates kept',
    );
  }
  const finite = finiteItems(timely.usable, (key, field, value) =>
    opts.logger?.warn({ source: batch.source, assetType: batch.assetType, key, field, value: String(value) }, 'rate input not finite; taken as unknown'),
  );
  const usable = finite.usable;
  const unusable = [...timely.unusable, ...finite.unusable];
  if (usable.length === 0) return { ...empty, skipped: unusable };
  const items = dedupe(usable);
  return db.transaction(async (tx) => {
    await lockRateWrites(tx);
    // Under the write lock no other rate writer moves a rate between the read and the write of one statement.
    const first = await upsertRates(tx, batch.assetType, items, opts.marketTz);
    let { updated } = first;
    const unknown = new Set(first.missing);
    let inserted = 0;
    if (batch.insertMissing && unknown.size) {
      const missing = items.filter((i) => unknown.has(i.key));
      inserted = await insertMissing(tx, batch.assetType, missing);
      await writeDetails(tx, batch.assetType, items, { newAssets: inserted > 0 });
      // The new assets get their rates as any other: one more statement, only in a batch that created some.
      const second = await upsertRates(tx, batch.assetType, missing, opts.marketTz);
      updated = [...updated, ...second.updated].sort((a, b) => Number(a.id) - Number(b.id));
      unknown.clear();
      for (const k of second.missing) unknown.add(k);
    } else {
      await writeDetails(tx, batch.assetType, items, { newAssets: false });
    }

    const skipped: RateBatchResult['skipped'] = [...unusable];
    for (const item of items) {
      if (unknown.has(item.key)) skipped.push({ key: item.key, reason: 'not a known asset' });
      else if (first.older.has(item.key)) skipped.push({ key: item.key, reason: 'older than the stored rate' });
    }

    const changed: RateChange[] = updated
      .filter((u) => u.changed)
      .map((u) => ({
        assetType: batch.assetType,
        assetId: Number(u.id),
        ticker: u.ticker,
        currency: u.currency,
        rate: num(u.current_rate),
        priceChangePercentage24h: num(u.price_change_percentage_24h),
        asOf: u.as_of,
      }));
    const events = await recordRatesUpdated(tx, batch.assetType, batch.source, changed, opts.logger);
    return { changed, inserted, skipped, events };
  });
}

interface UpsertOutcome {
  /** Assets whose row was rewritten, by id (`changed`: their rate or 24h change differs, the rest only moved in time). */
  updated: UpdatedRow[];
  /** Keys without an asset of the batch's type. */
  missing: string[];
  /** Keys whose stored rate is newer than the item's (nothing written for them). */
  older: Set<string>;
}

/**
 * The rate write proper, as ONE statement (one round trip, one pass over the batch): updates the rates where the
 * item is at least as new as the stored one and something differs, keeps the previous 24h change where the
 * provider gives none, computes the 7-day change from the close 7 days back (null when there is none: after a
 * data gap the old value would describe another week), and stores the day's close. It
 * counts the items it wrote; only when some were not (unknown, or older than the stored rate) does a second
 * query say which.
 */
async function upsertRates(
  tx: Tx,
  type: AssetType,
  items: readonly RateInput[],
  marketTz: string,
): Promise<UpsertOutcome> {
  const key = keyColumn(type);
  // A batch's items mostly share one timestamp: each distinct one goes once (with its market day), and the
  // items refer to it by position. Formatting and parsing thousands of equal dates cost more than the rest.
  const at = timeTable(items, marketTz);
  // Typed arrays through unnest, not a JSON document: no JSON to build, send and parse twice, only the columns
  // the update reads.
  // Closes: the current day's close is the asset's rate; the first rate of a later market day stores it in
  // asset_daily_closes (the roll-over), so a refresh within a day touches no closes row. The 7-day change's base
  // (the last close 7 to 13 days back) is kept on the asset for its market day and read from the closes (one
  // index probe) only when the day moved on: the stored rate itself when its day is in that window (it is
  // later than any close stored), else the closes' own. The stored rate's day is the one this writer gave it
  // (`close_7d_base_for`, set with every rate it writes), so both days come from the same time zone code; only
  // a rate written otherwise (demo data) has its day computed here.
  const rows = await tx.query<UpdatedRow & { t: number; written: string | null }>(
    `with x as (
       select x.key, x.board, x.rate, x.quoted, x.ch24, x.ch7, x.price_source, x.t, ($8::timestamptz[])[x.t] as as_of, ($9::date[])[x.t] as trade_date
       from unnest($1::text[], $2::text[], $3::numeric[], $4::numeric[], $5::numeric[], $6::numeric[], $7::text[], $11::int[])
              as x(key, board, rate, quoted, ch24, ch7, price_source, t)
     ), known as (
       select a.id, x.*, a.current_rate as old_rate, a.price_change_percentage_24h as old_ch24,
              coalesce(a.close_7d_base_for, (a.rate_updated_at at time zone $12)::date) as old_day, a.close_7d_base_for, a.close_7d_base
       from x join assets a on a.type = $10 and a.${key} = x.key
       where x.as_of >= coalesce(a.rate_updated_at, '-infinity'::timestamptz)
     ), cur as (
       select k.*,
              case
                when k.close_7d_base_for = k.trade_date then k.close_7d_base
                when k.old_day <= k.trade_date - 7 and k.old_day > k.trade_date - 14 and k.old_rate > 0 then k.old_rate
                else (select c.close from asset_daily_closes c
                      where c.asset_id = k.id and c.trade_date <= k.trade_date - 7 and c.trade_date > k.trade_date - 14
                      order by c.trade_date desc limit 1)
              end as close_7d
       from known k
     ), upd as (
       update assets a set
         current_rate = cur.rate,
         quoted_price = coalesce(cur.quoted, a.quoted_price),
         price_change_percentage_24h = coalesce(cur.ch24, a.price_change_percentage_24h),
         price_change_percentage_7d = coalesce(cur.ch7, round((cur.rate / cur.close_7d - 1) * 100, 4)),
         price_source = cur.price_source,
         board = coalesce(cur.board, a.board),
         rate_updated_at = cur.as_of,
         close_7d_base = cur.close_7d,
         close_7d_base_for = cur.trade_date,
         updated_at = now()
       from cur
       where a.id = cur.id
         and (a.current_rate is distinct from cur.rate
           or a.price_change_percentage_24h is distinct from coalesce(cur.ch24, a.price_change_percentage_24h)
           or a.price_change_percentage_7d is distinct from coalesce(cur.ch7, round((cur.rate / cur.close_7d - 1) * 100, 4))
           or a.quoted_price is distinct from coalesce(cur.quoted, a.quoted_price)
           or a.rate_updated_at is distinct from cur.as_of
           or a.board is distinct from coalesce(cur.board, a.board)
           or a.close_7d_base_for is distinct from cur.trade_date)
       returning a.id, cur.key, a.ticker, a.currency, a.current_rate, a.price_change_percentage_24h, cur.t,
                 (cur.old_rate is distinct from a.current_rate or cur.old_ch24 is distinct from a.price_change_percentage_24h) as changed
     ), closes as (
       insert into asset_daily_closes (asset_id, trade_date, close)
       select cur.id, cur.old_day, cur.old_rate from cur where cur.old_day < cur.trade_date and cur.old_rate > 0
       on conflict (asset_id, trade_date) do update set close = excluded.close
         where asset_daily_closes.close is distinct from excluded.close
     )
     select r.id::text, r.key, r.ticker, r.currency, r.current_rate::text, r.price_change_percentage_24h::text, r.t, r.changed, r.written::text
     from (
       select upd.*, null::bigint as written from upd
       union all
       select null, null, null, null, null, null, null, null, (select count(*) from cur)
     ) r
     order by r.id nulls last`,
    // Array literals built here: the driver's own conversion of 27,000 elements is a large part of the write.
    [
      sqlArray(items.map((i) => i.key)),
      sqlArray(items.map((i) => i.board)),
      sqlArray(items.map((i) => i.rate)),
      sqlArray(items.map((i) => i.quotedPrice)),
      sqlArray(items.map((i) => i.priceChangePercentage24h)),
      sqlArray(items.map((i) => i.priceChangePercentage7d)),
      sqlArray(items.map((i) => i.priceSource)),
      sqlArray(at.times),
      sqlArray(at.tradeDates),
      type,
      sqlArray(at.positions),
      marketTz,
    ],
  );
  const written = Number(rows.pop()!.written);
  // Each row's time is its item's, by position: the server formats no timestamp per row.
  for (const r of rows) r.as_of = at.times[r.t - 1]!;
  const out: UpsertOutcome = { updated: rows, missing: [], older: new Set() };
  // Every item had its asset and was at least as new as the stored rate: the usual batch, nothing to report.
  // Else which ones were not written, read in the same transaction and under the same lock: the statement
  // wrote only the others, so the unknown keys and the older items are still what they were.
  if (written === items.length) return out;
  const unwritten = await tx.query<{ key: string; missing: boolean }>(
    `select x.key, a.id is null as missing
     from unnest($1::text[], $2::int[]) as x(key, t)
     left join assets a on a.type = $4 and a.${key} = x.key
     where a.id is null or ($3::timestamptz[])[x.t] < a.rate_updated_at`,
    [sqlArray(items.map((i) => i.key)), sqlArray(at.positions), sqlArray(at.times), type],
  );
  for (const u of unwritten) {
    if (u.missing) out.missing.push(u.key);
    else out.older.add(u.key);
  }
  return out;
}

/**
 * Guards the database and the event against NaN/Infinity (a division by a zero or near-zero price upstream):
 * JSON would turn them into null, i.e. a null rate. An item without a finite positive rate is not written
 * (its stored rate stays); a non-finite 24h/7d change or quoted price becomes null ("unknown": the stored 24h
 * change and quoted price are kept, the 7-day change is computed from the closes), reported through `onDropped`.
 */
function finiteItems(
  items: readonly RateInput[],
  onDropped: (key: string, field: string, value: number) => void,
): { usable: RateInput[]; unusable: { key: string; reason: string }[] } {
  const usable: RateInput[] = [];
  const unusable: { key: string; reason: string }[] = [];
  for (const item of items) {
    if (!(Number.isFinite(item.rate) && item.rate > 0)) {
      unusable.push({ key: item.key, reason: 'no finite positive rate' });
      continue;
    }
    const finite = (field: 'priceChangePercentage24h' | 'priceChangePercentage7d' | 'quotedPrice'): number | null | undefined => {
      const v = item[field];
      if (typeof v !== 'number' || Number.isFinite(v)) return v;
      onDropped(item.key, field, v);
      return null;
    };
    // The usual item is taken as it is (no copy of thousands of objects); missing numbers already read as null.
    if (isFiniteOrAbsent(item.priceChangePercentage24h) && isFiniteOrAbsent(item.priceChangePercentage7d) && isFiniteOrAbsent(item.quotedPrice)) {
      usable.push(item);
      continue;
    }
    usable.push({
      ...item,
      priceChangePercentage24h: finite('priceChangePercentage24h') ?? null,
      priceChangePercentage7d: finite('priceChangePercentage7d') ?? null,
      quotedPrice: finite('quotedPrice') ?? null,
    });
  }
  return { usable, unusable };
}

/** Items dated up to `latestMs`; the others are returned with the reason (see MAX_QUOTE_TIME_AHEAD_MS). */
function notFromTheFuture(items: readonly RateInput[], latestMs: number): { usable: readonly RateInput[]; unusable: { key: string; reason: string }[] } {
  if (items.every((i) => i.asOf.getTime() <= latestMs)) return { usable: items, unusable: [] };
  const usable: RateInput[] = [];
  const unusable: { key: string; reason: string }[] = [];
  for (const item of items) {
    if (item.asOf.getTime() <= latestMs) usable.push(item);
    else unusable.push({ key: item.key, reason: 'quote time ahead of the clock' });
  }
  return { usable, unusable };
}

/** The distinct times of the items (ISO), the market day of each, and each item's (1-based) position in them. */
function timeTable(items: readonly RateInput[], marketTz: string): { times: string[]; tradeDates: string[]; positions: number[] } {
  const times: string[] = [];
  const tradeDates: string[] = [];
  const seen = new Map<number, number>();
  const positions = items.map((i) => {
    const ms = i.asOf.getTime();
    let n = seen.get(ms);
    if (n === undefined) {
      seen.set(ms, (n = times.push(i.asOf.toISOString())));
      tradeDates.push(dateInZone(i.asOf, marketTz));
    }
    return n;
  });
  return { times, tradeDates, positions };
}

const isFiniteOrAbsent = (v: number | null | undefined) => v === null || v === undefined || Number.isFinite(v);

/** One item per key (the first wins): a provider listing a security twice must not update it twice. */
function dedupe(items: readonly RateInput[]): RateInput[] {
  const seen = new Set<string>();
  return items.filter((i) => !seen.has(i.key) && seen.add(i.key));
}

async function insertMissing(tx: Tx, type: AssetType, items: readonly RateInput[]): Promise<number> {
  const key = keyColumn(type);
  const json = JSON.stringify(
    items.map((i) => ({
      key: i.key,
      ticker: i.ticker,
      name: i.name,
      short_name: i.shortName ?? null,
      latin_name: i.latinName ?? null,
      isin: i.isin ?? null,
      board: i.board ?? null,
      currency: i.currency,
    })),
  );
  const rows = await tx.query<{ id: string }>(
    `insert into assets (type, ticker, source_id, board, isin, name, short_name, latin_name, currency)
     select $2, x.ticker, case when $2 = 'token' then x.key end, x.board, x.isin, x.name, x.short_name, x.latin_name, x.currency
     from jsonb_to_recordset($1::jsonb) as x(key text, ticker text, board text, isin text, name text, short_name text, latin_name text, currency text)
     where not exists (select 1 from assets a where a.type = $2 and a.${key} = x.key)
     on conflict do nothing
     returning id::text`,
    [json, type],
  );
  return rows.length;
}

/**
 * Sibling-table rows: shares only for assets this batch created (the stats job owns market cap and volume;
 * an asset and its share row are always created together), bonds and tokens every time (face values amortise).
 */
async function writeDetails(tx: Tx, type: AssetType, items: readonly RateInput[], opts: { newAssets: boolean }): Promise<void> {
  const key = keyColumn(type);
  if (opts.newAssets) {
    await insertShareRows(tx, items.flatMap((i) => (i.details?.kind === 'share' ? [{ ticker: i.key, ...i.details }] : [])));
  }
  const bonds = items.flatMap((i) => (i.details?.kind === 'bond' ? [{ key: i.key, ...i.details }] : []));
  if (bonds.length) {
    await tx.query(
      `insert into bonds (asset_id, face_value, face_unit, maturity_date)
       select a.id, x.face_value, x.face_unit, x.maturity_date
       from jsonb_to_recordset($1::jsonb) as x(key text, face_value numeric, face_unit text, maturity_date date)
       join assets a on a.type = 'bond' and a.${key} = x.key
       on conflict (asset_id) do update set face_value = coalesce(excluded.face_value, bonds.face_value),
         face_unit = coalesce(excluded.face_unit, bonds.face_unit), maturity_date = coalesce(excluded.maturity_date, bonds.maturity_date)
       where (bonds.face_value, bonds.face_unit, bonds.maturity_date) is distinct from
             (coalesce(excluded.face_value, bonds.face_value), coalesce(excluded.face_unit, bonds.face_unit), coalesce(excluded.maturity_date, bonds.maturity_date))`,
      [JSON.stringify(bonds.map((b) => ({ key: b.key, face_value: b.faceValue, face_unit: b.faceUnit, maturity_date: b.maturityDate })))],
    );
  }
  const tokens = items.flatMap((i) => (i.details?.kind === 'token' ? [{ key: i.key, ...i.details }] : []));
  if (tokens.length) {
    await tx.query(
      `insert into tokens (asset_id, market_cap, total_volume)
       select a.id, x.market_cap, x.total_volume
       from jsonb_to_recordset($1::jsonb) as x(key text, market_cap numeric, total_volume numeric)
       join assets a on a.type = 'token' and a.source_id = x.key
       on conflict (asset_id) do update set market_cap = coalesce(excluded.market_cap, tokens.market_cap),
         total_volume = coalesce(excluded.total_volume, tokens.total_volume)
       where (tokens.market_cap, tokens.total_volume) is distinct from
             (coalesce(excluded.market_cap, tokens.market_cap), coalesce(excluded.total_volume, tokens.total_volume))`,
      [JSON.stringify(tokens.map((t) => ({ key: t.key, market_cap: t.marketCap, total_volume: t.totalVolume })))],
    );
  }
}
