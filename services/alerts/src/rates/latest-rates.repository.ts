import type { AssetType, RateChange } from '@invest/contracts';
import type { SqlClient } from '@invest/platform';
import type { RateView } from '../evaluation/evaluation.types.js';

export interface RateRow {
  asset_type: string;
  asset_id: string;
  ticker: string;
  /** `numeric` text: the rate RatesUpdated carried, exactly. */
  rate: string | null;
  change_24h: number | null;
  as_of: Date;
  observed_at: Date;
}

const RATE_COLUMNS = 'r.asset_type, r.asset_id::text, r.ticker, r.rate, r.change_24h, r.as_of, r.observed_at';

/** The stored latest rates of the given assets (`type:id` keys). */
export async function storedRates(db: SqlClient, keys: readonly string[]): Promise<RateView[]> {
  if (keys.length === 0) return [];
  const parts = keys.map((k) => [k.slice(0, k.lastIndexOf(':')), k.slice(k.lastIndexOf(':') + 1)]);
  const rows = await db.query<RateRow>(`select ${RATE_COLUMNS} from latest_rates r join unnest($1::text[], $2::bigint[]) as k(asset_type, asset_id) using (asset_type, asset_id)`, [
    parts.map((p) => p[0]),
    parts.map((p) => p[1]),
  ]);
  return rows.map(toRateView);
}

/** Every stored latest rate at least as new as `after` (what a sweep evaluates). */
export async function ratesSince(db: SqlClient, after: Date): Promise<RateView[]> {
  return (await db.query<RateRow>(`select ${RATE_COLUMNS} from latest_rates r where r.as_of >= $1`, [after])).map(toRateView);
}

export function toRateView(r: RateRow): RateView {
  return {
    assetType: r.asset_type as AssetType,
    assetId: Number(r.asset_id),
    ticker: r.ticker,
    // The double the event carried (its shortest text is the stored decimal).
    rate: r.rate === null ? null : Number(r.rate),
    change24h: r.change_24h,
    asOf: new Date(r.as_of),
    observedAt: new Date(r.observed_at),
  };
}

/** A batch's rate as `upsertRates` gives it back when it became the latest. */
export function rateViewOf(r: RateChange, observedAt: Date): RateView {
  return { assetType: r.assetType, assetId: r.assetId, ticker: r.ticker, rate: r.rate, change24h: r.priceChangePercentage24h, asOf: new Date(r.asOf), observedAt };
}

/** The batch's rates to evaluate at once, and which of them became the latest once written. */
export interface UpsertingRates {
  /** Every rate of the batch, as `rateViewOf` gives it. */
  batch: RateView[];
  /** The batch's rates that became the latest (those of `batch`, less the refused). */
  changed: Promise<RateView[]>;
}

/**
 * Keeps the latest rate of each asset from a RatesUpdated batch; an older rate (by the provider's time)
 * arriving late never replaces a newer one. The statement is on its way before the batch's views are built
 * (those overlap with it), and only the rates it refused come back (usually none): the minute's thousands of
 * keys are not sent back and parsed again.
 */
export function upsertRates(tx: SqlClient, given: readonly RateChange[], observedAt: Date): UpsertingRates {
  if (given.length === 0) return { batch: [], changed: Promise.resolve([]) };
  // A statement writes a row once: an asset named twice would fail the whole batch on every delivery.
  const rates = latestPerAsset(given);
  const refusing = writeRates(tx, JSON.stringify(rates, RATE_KEYS), observedAt);
  const batch = rates.map((r) => rateViewOf(r, observedAt));
  return { batch, changed: refusing.then((refused) => notRefused(batch, refused)) };
}

/**
 * The upsert of a batch given as `JSON.stringify(rates, RATE_KEYS)` (one rate per asset); resolves with the rates
 * it refused (a stored rate newer). One JSON parameter, only the columns' keys: binding seven arrays of thousands
 * of elements cost the client more than this whole statement costs Postgres, on the thread the candidates are
 * matched on meanwhile. A rate is read as `numeric` from its JSON text (a double's shortest text): stored exactly.
 */
function writeRates(tx: SqlClient, json: string, observedAt: Date): Promise<{ asset_type: string; asset_id: string }[]> {
  return tx.query<{ asset_type: string; asset_id: string }>(
    `with r as (
       select * from json_to_recordset($1::json)
         as r("assetType" text, "assetId" bigint, ticker text, currency text, rate numeric, "priceChangePercentage24h" float8, "asOf" timestamptz)),
     stored as (
       insert into latest_rates (asset_type, asset_id, ticker, currency, rate, change_24h, as_of, observed_at)
       select "assetType", "assetId", ticker, currency, rate, "priceChangePercentage24h", "asOf", $2 from r
       on conflict (asset_type, asset_id) do update set ticker = excluded.ticker, currency = excluded.currency, rate = excluded.rate,
         change_24h = excluded.change_24h, as_of = excluded.as_of, observed_at = excluded.observed_at
       where latest_rates.as_of <= excluded.as_of
       returning asset_type, asset_id)
     select "assetType" as asset_type, "assetId"::text as asset_id from r
      where not exists (select 1 from stored s where s.asset_type = r."assetType" and s.asset_id = r."assetId")`,
    [json, observedAt],
  );
}

/** The batch's rates of an event evaluated before they are stored (`pendingRates`). */
export interface PendingRates extends UpsertingRates {
  /** Writes the batch's rates as `upsertRates` does, once however often called, in the event's transaction. */
  store(): Promise<void>;
}

/** The first key of the rates locks among the database's advisory locks (feed locks: 0x666565; jobs: the one-key form). */
const RATES_LOCK_SPACE = 0x726174; // "rat"

/**
 * A RatesUpdated batch as the consumer evaluates it: first the rates lock of each asset type it names (an
 * advisory lock until `tx` ends, which the consumer takes on every path), then `changed` is read: the batch's
 * rates that no stored rate is newer than, which is exactly what `upsertRates` would store (it refuses the
 * same ones). The upsert itself waits for `store()`: the consumer calls it once the firings are published, so
 * its ~3,000 row updates are not on the way from a rate to its notification. What other transactions see
 * does not change: the rates commit with the inbox row, after the last firing, as when they were written
 * first. The lock keeps what the upsert's row locks gave: two instances' events on one asset type follow
 * each other, the second checking against what the first stored.
 */
export function pendingRates(tx: SqlClient, given: readonly RateChange[], observedAt: Date): PendingRates {
  if (given.length === 0) return { batch: [], changed: Promise.resolve([]), store: () => Promise.resolve() };
  const rates = latestPerAsset(given);
  const batch = rates.map((r) => rateViewOf(r, observedAt));
  const types = [...new Set(rates.map((r) => r.assetType))];
  const locked = tx.query(
    `select pg_advisory_xact_lock(${RATES_LOCK_SPACE}, k) from (select distinct hashtext(t) as k from unnest($1::text[]) t order by 1) s`,
    [types],
  );
  // The check reads every column the upsert writes, with its type (the same text): a batch the upsert cannot store
  // (text Postgres refuses, a fractional id) fails here, before anything fires, not after the firings are out.
  const json = JSON.stringify(rates, RATE_KEYS);
  const refusing = locked.then(() =>
    tx.query<{ asset_type: string; asset_id: string }>(
      `select r.asset_type, r.asset_id::text
         from json_to_recordset($1::json)
           as b("assetType" text, "assetId" bigint, ticker text, currency text, rate numeric, "priceChangePercentage24h" float8, "asOf" timestamptz)
         join latest_rates r on r.asset_type = b."assetType" and r.asset_id = b."assetId"
        where r.as_of > b."asOf"`,
      [json],
    ),
  );
  let storing: Promise<void> | undefined;
  return {
    batch,
    changed: refusing.then((refused) => notRefused(batch, refused)),
    store: () => (storing ??= refusing.then(() => writeRates(tx, json, observedAt)).then(() => undefined)),
  };
}

function notRefused(batch: readonly RateView[], refused: readonly { asset_type: string; asset_id: string }[]): RateView[] {
  if (refused.length === 0) return [...batch];
  const older = new Set(refused.map((r) => `${r.asset_type}:${r.asset_id}`));
  return batch.filter((v) => !older.has(`${v.assetType}:${v.assetId}`));
}

/** What of a rate the upsert reads (a later version's additional fields are not sent). */
const RATE_KEYS: (keyof RateChange)[] = ['assetType', 'assetId', 'ticker', 'currency', 'rate', 'priceChangePercentage24h', 'asOf'];

/**
 * The batch with one rate per asset: its latest by `asOf` (on a tie, the later in the batch), in the batch's
 * order. The batch itself when no asset is named twice (the usual case).
 */
export function latestPerAsset(rates: readonly RateChange[]): readonly RateChange[] {
  const chosen = new Map<string, number>();
  let twice = false;
  rates.forEach((r, i) => {
    const key = `${r.assetType}:${r.assetId}`;
    const j = chosen.get(key);
    if (j === undefined) chosen.set(key, i);
    else {
      twice = true;
      if (Date.parse(r.asOf) >= Date.parse(rates[j]!.asOf)) chosen.set(key, i);
    }
  });
  if (!twice) return rates;
  return [...chosen.values()].sort((a, b) => a - b).map((i) => rates[i]!);
}
