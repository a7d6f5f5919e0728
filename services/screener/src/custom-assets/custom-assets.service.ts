import {
  type CustomAsset,
  type CustomAssetReply,
  type AssetUse,
  type DeleteCustomAssetReply,
  ErrorCode,
  deleteCustomAssetRequestSchema,
  type ListCustomAssetsReply,
  type RateChange,
  RequestOutcome,
  CustomAssetSubjects,
  createCustomAssetRequestSchema,
  updateCustomAssetRequestSchema,
} from '@invest/contracts';
import type { Db, SqlClient, Tx } from '@invest/platform/db/database';
import { idempotent, requestFingerprint } from '@invest/platform/idempotency/idempotency';
import { requireBelowQuota } from '@invest/platform/quota/quota';
import { ServiceError, parseOrThrow } from '@invest/platform/rpc/service-error';
import { lockRateWrites, recordRatesUpdated } from '../rates/rates-updated.recorder.js';
import { recordAssetDeleted, recordAssetUpdated } from './asset-events.recorder.js';
import type { AssetUsesSource } from './asset-uses.client.js';

const NOT_FOUND = 'Custom asset';
/** Custom assets one user may have (`CUSTOM_ASSETS_MAX_PER_USER`). */
export const DEFAULT_CUSTOM_ASSETS_PER_USER = 200;
/** `source` of the RatesUpdated events a price change by the owner records. */
export const CUSTOM_ASSET_PRICE_SOURCE = 'screener.custom-assets';

const ASSET_JSON = `json_build_object(
  'id', a.id,
  'type', a.type,
  'ticker', a.ticker,
  'name', a.name,
  'description', ca.description,
  'currency', a.currency,
  'current_rate', a.current_rate::text, -- exact decimal text, as contracts' decimalOutputSchema
  'price_change_percentage_24h', a.price_change_percentage_24h,
  'rate_updated_at', to_char(a.rate_updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  'created_at', to_char(a.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
)`;

/** The 24h change of a custom asset: against its last close of an earlier market day; null on its first day. */
// A change a JS double cannot hold (beyond ±1e300 %) only comes from a degenerate old close (prices
// stored before the 1e-8 minimum); it is unknown, not a number no reader could represent.
const DAY_CHANGE_SQL = (rate: string, id: string, today: string) => `(
  select case when c.close > 0 and abs((${rate} / c.close - 1) * 100) < 1e300 then round((${rate} / c.close - 1) * 100, 4) end
  from asset_daily_closes c
  where c.asset_id = ${id} and c.trade_date < ${today}::date order by c.trade_date desc limit 1)`;

interface ChangedRow {
  id: string;
  ticker: string;
  name: string;
  currency: string;
  current_rate: string | null;
  ch24: string | null;
  as_of: string;
}

const toChange = (r: ChangedRow): RateChange => ({
  assetType: 'custom_asset',
  assetId: Number(r.id),
  ticker: r.ticker,
  currency: r.currency,
  rate: r.current_rate === null ? null : Number(r.current_rate),
  priceChangePercentage24h: r.ch24 === null ? null : Number(r.ch24),
  asOf: r.as_of,
});

const CHANGED_COLUMNS = `a.id::text, a.ticker, a.name, a.currency, a.current_rate::text, a.price_change_percentage_24h::text as ch24,
  to_char(a.rate_updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as as_of`;

async function storeClose(tx: SqlClient, id: string, today: string): Promise<void> {
  await tx.query(
    `insert into asset_daily_closes (asset_id, trade_date, close)
     select id, $2::date, current_rate from assets where id = $1 and current_rate > 0
     on conflict (asset_id, trade_date) do update set close = excluded.close`,
    [id, today],
  );
}

async function readOwned(db: SqlClient, userId: string, id: number): Promise<CustomAsset | undefined> {
  const [row] = await db.query<{ asset: CustomAsset }>(
    `select ${ASSET_JSON} as asset from assets a join custom_assets ca on ca.asset_id = a.id where a.id = $1 and ca.owner_user_id = $2 and ca.deleting_since is null`,
    [id, userId],
  );
  return row?.asset;
}

/**
 * Assets whose price their owner sets (a flat, a private company share). Every price change is a rate change
 * like any other: written with its day close, and recorded as RatesUpdated in the same transaction.
 */
export class CustomAssetsService {
  constructor(
    private readonly db: Db,
    private readonly today: () => string,
    /** Where an asset is in use, by the portfolios service (asked before a deletion completes). */
    private readonly assetUses: AssetUsesSource,
    private readonly maxPerUser = DEFAULT_CUSTOM_ASSETS_PER_USER,
  ) {}

  async list(userId: string): Promise<ListCustomAssetsReply> {
    const rows = await this.db.query<{ asset: CustomAsset }>(
      `select ${ASSET_JSON} as asset from custom_assets ca join assets a on a.id = ca.asset_id where ca.owner_user_id = $1 and ca.deleting_since is null order by a.id`,
      [userId],
    );
    return { data: rows.map((r) => r.asset) };
  }

  /** `idempotencyKey`: a repeat with the same key and request answers the first create's reply (see `idempotent`). */
  async create(userId: string, input: unknown, idempotencyKey?: string): Promise<CustomAssetReply> {
    const req = parseOrThrow(createCustomAssetRequestSchema, input);
    const today = this.today();
    const subject = CustomAssetSubjects.create;
    const limit = this.maxPerUser;
    return idempotent<CustomAssetReply>(this.db, { scope: subject, userId, key: idempotencyKey, fingerprint: requestFingerprint(subject, req) }, (finish) =>
      this.db.transaction(async (tx) => {
        await lockRateWrites(tx);
        // Every custom asset write holds the rate-writes lock, so this count cannot go stale before the insert commits.
        await requireBelowQuota(tx, {
          limit,
          rowsSql: 'select 1 from custom_assets where owner_user_id = $1',
          params: [userId],
          field: 'custom_assets',
          message: `You can have at most ${limit} custom assets (the custom assets per user limit).`,
        });
        const [row] = await tx.query<ChangedRow>(
          `with a as (
             insert into assets (type, ticker, name, currency, current_rate, quoted_price, price_source, rate_updated_at)
             values ('custom_asset', $1, $2, $3, $4::numeric, $4::numeric, 'owner', now())
             returning *
           ), ca as (insert into custom_assets (asset_id, owner_user_id, description) select id, $5, $6 from a)
           select ${CHANGED_COLUMNS} from a`,
          [req.ticker ?? tickerFromName(req.name), req.name, req.currency, req.price, userId, req.description ?? null],
        );
        await storeClose(tx, row!.id, today);
        await recordRatesUpdated(tx, 'custom_asset', CUSTOM_ASSET_PRICE_SOURCE, [toChange(row!)]);
        return finish(tx, { data: (await readOwned(tx, userId, Number(row!.id)))! });
      }),
    );
  }

  async update(userId: string, input: unknown): Promise<CustomAssetReply> {
    const raw = (input ?? {}) as Record<string, unknown>;
    requireWellFormedId(raw);
    const req = parseOrThrow(updateCustomAssetRequestSchema, raw);
    const today = this.today();
    return this.db.transaction(async (tx) => {
      await lockRateWrites(tx);
      const [before] = await tx.query<{ current_rate: string | null; ch24: string | null; currency: string; ticker: string; name: string }>(
        `select a.current_rate::text, a.price_change_percentage_24h::text as ch24, a.currency, a.ticker, a.name
         from assets a join custom_assets ca on ca.asset_id = a.id where a.id = $1 and ca.owner_user_id = $2 and ca.deleting_since is null for update of a`,
        [req.id, userId],
      );
      if (!before) throw ServiceError.notFound(NOT_FOUND);
      const priceGiven = req.price !== undefined;
      const [after] = await tx.query<ChangedRow>(
        `update assets a set
           name = coalesce($2, a.name),
           ticker = coalesce($3, a.ticker),
           currency = coalesce($4, a.currency),
           current_rate = coalesce($5::numeric, a.current_rate),
           quoted_price = coalesce($5::numeric, a.quoted_price),
           price_source = case when $5::numeric is null then a.price_source else 'owner' end,
           rate_updated_at = case when $5::numeric is null then a.rate_updated_at else now() end,
           price_change_percentage_24h = case when $5::numeric is null then a.price_change_percentage_24h
                                              else ${DAY_CHANGE_SQL('$5::numeric', 'a.id', '$6')} end,
           updated_at = now()
         where a.id = $1
         returning ${CHANGED_COLUMNS}`,
        [req.id, req.name ?? null, req.ticker ?? null, req.currency ?? null, priceGiven ? req.price : null, today],
      );
      if (req.description !== undefined) {
        await tx.query('update custom_assets set description = $2 where asset_id = $1', [req.id, req.description]);
      }
      if (priceGiven) await storeClose(tx, after!.id, today);
      const changed =
        numOrNull(before.current_rate) !== numOrNull(after!.current_rate) || numOrNull(before.ch24) !== numOrNull(after!.ch24) || before.currency !== after!.currency;
      if (changed) await recordRatesUpdated(tx, 'custom_asset', CUSTOM_ASSET_PRICE_SOURCE, [toChange(after!)]);
      // Portfolios show the ticker, name and currency: a new description is its own event (RatesUpdated carries rates).
      if (before.ticker !== after!.ticker || before.name !== after!.name || before.currency !== after!.currency) {
        await recordAssetUpdated(tx, { assetType: 'custom_asset', assetId: Number(after!.id), ticker: after!.ticker, name: after!.name, currency: after!.currency });
      }
      // Read in the transaction that wrote it: a delete committing right after must not leave this reply empty.
      return { data: (await readOwned(tx, userId, req.id))! };
    });
  }

  /**
   * Deletes the user's custom asset, unless it is in use: an open position in a portfolio or an item of a
   * watchlist is a 409 naming each. Records AssetDeleted. Deals of positions already closed stay as history.
   *
   * The uses are the portfolios service's, and an add there may have checked the asset an instant ago without
   * having committed, or its event reached `used_assets` (the read model, which answers the common case at
   * once). So the asset is first hidden (`deleting_since`: the lists, `screener.assets.get` and the checks of
   * new uses no longer see it), then portfolios is asked (`portfolios.asset-uses.get`), which reads the uses under
   * the asset's use lock and leaves a fence: an add under way is waited for and counted, one whose check saw the
   * asset before it was hidden finds the fence, a later one finds the asset gone. Uses found, or no answer: the asset is shown again (409, 503). A process that
   * stops between the steps leaves the asset hidden; `finishPendingDeletions` completes it.
   */
  async delete(userId: string, input: unknown): Promise<DeleteCustomAssetReply> {
    const raw = (input ?? {}) as Record<string, unknown>;
    requireWellFormedId(raw);
    const { id } = parseOrThrow(deleteCustomAssetRequestSchema, raw);
    const mark = await this.db.transaction(async (tx) => {
      await lockRateWrites(tx);
      const [owned] = await tx.query(
        'select 1 from assets a join custom_assets ca on ca.asset_id = a.id where a.id = $1 and ca.owner_user_id = $2 and ca.deleting_since is null for update of a',
        [id, userId],
      );
      if (!owned) throw ServiceError.notFound(NOT_FOUND);
      const uses = await tx.query<{ source: string; ref: string }>(
        'select source, ref from used_assets where asset_id = $1 order by source, length(ref), ref',
        [id],
      );
      if (uses.length > 0) throw inUse(uses.map((u) => ({ type: u.source, id: Number(u.ref) })));
      const [row] = await tx.query<{ mark: string }>(
        'update custom_assets set deleting_since = clock_timestamp() where asset_id = $1 returning deleting_since::text as mark',
        [id],
      );
      return row!.mark;
    });
    await this.completeDeletion(id, userId, mark);
    return { data: { id, deleted: true } };
  }

  /**
   * Completes deletions whose process stopped after hiding the asset (`deleting_since` before `olderThan`;
   * a deletion in progress takes no longer than one request to portfolios): deleted, or shown again where
   * portfolios reports a use; one portfolios does not answer for stays hidden for the next run.
   */
  async finishPendingDeletions(olderThan: Date): Promise<{ pending: number; deleted: number; restored: number; unanswered: number }> {
    const pending = await this.db.query<{ id: string; owner: string; mark: string }>(
      `select asset_id::text as id, owner_user_id as owner, deleting_since::text as mark from custom_assets
        where deleting_since < $1 order by deleting_since limit 100`,
      [olderThan],
    );
    const outcome = { pending: pending.length, deleted: 0, restored: 0, unanswered: 0 };
    for (const p of pending) {
      try {
        await this.completeDeletion(Number(p.id), p.owner, p.mark, 'keep');
        outcome.deleted++;
      } catch (err) {
        if (!(err instanceof ServiceError)) throw err;
        if (err.code === ErrorCode.Conflict) outcome.restored++;
        else outcome.unanswered++;
      }
    }
    return outcome;
  }

  /**
   * Asks portfolios for the hidden asset's uses; deletes it if none, shows it again if some. Without an answer, or
   * when the delete itself fails, the request's deletion shows it again (503: not deleted), a pending one's
   * completion keeps it hidden for the next run.
   */
  private async completeDeletion(id: number, userId: string, mark: string, onFailure: 'restore' | 'keep' = 'restore'): Promise<void> {
    let uses: AssetUse[];
    try {
      uses = await this.assetUses.usesOf({ type: 'custom_asset', id });
    } catch (err) {
      if (onFailure === 'restore') await this.restore(id, mark);
      throw Object.assign(ServiceError.unavailable('The portfolios service did not say whether the custom asset is in use; it was not deleted.'), { cause: err });
    }
    if (uses.length > 0) {
      await this.restore(id, mark);
      throw inUse(uses);
    }
    try {
      await this.db.transaction(async (tx) => {
        await lockRateWrites(tx);
        // Only the deletion that hid it (another may have completed or undone it meanwhile).
        const gone = await tx.query('delete from assets a using custom_assets ca where a.id = $1 and ca.asset_id = a.id and ca.deleting_since = $2::timestamptz returning a.id', [id, mark]);
        if (gone.length > 0) await recordAssetDeleted(tx, { assetType: 'custom_asset', assetId: id, userId });
      });
    } catch (err) {
      // Not deleted (past the request's deadline behind the rate writers, a failure): the request's answer says
      // nothing was done, so the asset is shown again; if even that fails, the job completes it later.
      if (onFailure === 'keep') throw err;
      const shown = await this.restore(id, mark).then(
        () => true,
        () => false,
      );
      if (shown) throw err;
      throw Object.assign(ServiceError.unavailable('The custom asset could not be deleted now; it will be deleted shortly.', RequestOutcome.Unknown), { cause: err });
    }
  }

  private async restore(id: number, mark: string): Promise<void> {
    await this.db.query('update custom_assets set deleting_since = null where asset_id = $1 and deleting_since = $2::timestamptz', [id, mark]);
  }
}

/** A 409 naming where the asset is in use. */
function inUse(uses: readonly { type: string; id: number }[]): ServiceError {
  const where = uses.map((u) => `${u.type} ${u.id}`);
  return ServiceError.conflict(`The custom asset is in use (${where.join(', ')}); remove it from there first.`, { used_in: uses.map((u) => ({ type: u.type, id: u.id })) });
}

const numOrNull = (v: string | null) => (v === null ? null : Number(v));

/**
 * A malformed id (also 0, or beyond what a JS number holds exactly) names no resource of this user: 404, like an
 * id of somebody else's asset.
 */
function requireWellFormedId(raw: Record<string, unknown>): void {
  const id = String(raw.id ?? '');
  if (!/^[1-9]\d{0,15}$/.test(id) || !Number.isSafeInteger(Number(id))) throw ServiceError.notFound(NOT_FOUND);
}

/** A ticker for an asset created without one: its name, upper-cased, other characters as `-` (`Flat in Kazan` → `FLAT-IN-KAZAN`). */
export function tickerFromName(name: string): string {
  const t = name
    .toUpperCase()
    .replace(/[^\p{L}\p{N}._-]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 20)
    // 20 UTF-16 units as the ticker's limit counts them, without half of a character outside the BMP.
    .replace(/[\uD800-\uDBFF]$/, '')
    .replace(/-+$/, '');
  return t || 'CUSTOM';
}

/**
 * Moves the custom assets' 24h change on with the market day (yesterday's close becomes the reference), stores
 * today's close, and records RatesUpdated for those whose change moved. Part of `get:assetRates`.
 */
export async function refreshCustomAssetChanges(
  db: Db,
  opts: { today: string; source: string; assetIds?: readonly number[] },
): Promise<{ fetched: number; changed: RateChange[] }> {
  return db.transaction(async (tx: Tx) => {
    await lockRateWrites(tx);
    const ids = opts.assetIds ? [opts.assetIds] : [];
    const onlyIds = (param: string) => (opts.assetIds ? `and a.id = any(${param}::bigint[])` : '');
    const [{ n } = { n: 0 }] = await tx.query<{ n: number }>(
      `select count(*)::int as n from assets a join custom_assets ca on ca.asset_id = a.id where a.current_rate is not null ${onlyIds('$1')}`,
      ids,
    );
    const rows = await tx.query<ChangedRow>(
      `with cur as (
         select a.id, ${DAY_CHANGE_SQL('a.current_rate', 'a.id', '$1')} as ch24
         from assets a join custom_assets ca on ca.asset_id = a.id
         where a.current_rate is not null ${onlyIds('$2')}
       ), closes as (
         insert into asset_daily_closes (asset_id, trade_date, close)
         select a.id, $1::date, a.current_rate from assets a join cur on cur.id = a.id where a.current_rate > 0
         on conflict (asset_id, trade_date) do nothing
       )
       update assets a set price_change_percentage_24h = cur.ch24, rate_updated_at = now(), updated_at = now()
       from cur where a.id = cur.id and a.price_change_percentage_24h is distinct from cur.ch24
       returning ${CHANGED_COLUMNS}`,
      [opts.today, ...ids],
    );
    const changed = rows.map(toChange);
    await recordRatesUpdated(tx, 'custom_asset', opts.source, changed);
    return { fetched: n, changed };
  });
}
