import type { AssetRef } from '@invest/contracts';
import type { Db, Logger } from '@invest/platform';
import { parseIssHistory } from '../market-data/iss-history.parser.js';
import type { MoexIssClient } from '../market-data/moex-iss.client.js';
import { lockRateWrites } from '../rates/rates-updated.recorder.js';

/** Where ISS keeps the history of each asset type it quotes (tokens, futures and custom assets are not backfilled). */
const HISTORY_MARKETS: Partial<Record<AssetRef['type'], { engine: string; market: string; board: string }>> = {
  share: { engine: 'stock', market: 'shares', board: 'TQBR' },
  etf: { engine: 'stock', market: 'shares', board: 'TQTF' },
  bond: { engine: 'stock', market: 'bonds', board: 'TQOB' },
  currency: { engine: 'currency', market: 'selt', board: 'CETS' },
};
/** 100 rows a page: about 40 years of trading days. */
const MAX_PAGES = 100;
/** A failed backfill, or one that found no history, is tried again on a request this much later, not on every one. */
const RETRY_AFTER_MS = 10 * 60_000;
/**
 * A request that still saw an asset empty this soon after its backfill stored closes read before the commit: it is
 * answered as backfilling (the caller asks again). Later, an empty asset lost its closes and is backfilled again.
 */
const JUST_STORED_MS = 60_000;

/**
 * Fills `asset_daily_closes` of an asset that has none from MOEX ISS history (`/iss/history/engines/…/securities/
 * <SECID>.json`, paged by `history.cursor`), once: started by a closes request that found the asset empty, it runs in
 * the background (the request answers at once and names the asset as backfilling) and stores every close before
 * the current market day (that day's close is the asset's current rate until the roll-over) without replacing any.
 * Bonds are quoted in percent of face: their closes are stored as money (× FACEVALUE / 100), like their rates.
 */
export class ClosesBackfill {
  private readonly running = new Map<number, Promise<void>>();
  private readonly finished = new Map<number, { ok: boolean; at: number; stored: number }>();

  constructor(
    private readonly deps: { db: Db; iss: MoexIssClient; logger: Logger; marketToday: () => string; signal?: AbortSignal },
  ) {}

  /**
   * Starts the backfill of each asset (found empty by the caller's read) ISS can have history for, unless one is in
   * flight or ended lately; answers the assets the caller should ask about again: in flight, or stored just now.
   */
  start(refs: readonly AssetRef[], from: string): AssetRef[] {
    const now = Date.now();
    const justStored = new Set<number>();
    for (const ref of refs) {
      if (!HISTORY_MARKETS[ref.type] || this.running.has(ref.id)) continue;
      const done = this.finished.get(ref.id);
      if (done?.ok && done.stored > 0 && now - done.at < JUST_STORED_MS) {
        justStored.add(ref.id);
        continue;
      }
      if (done && (done.stored === 0 || !done.ok) && now - done.at < RETRY_AFTER_MS) continue;
      const run = this.backfill(ref, from)
        .then(
          (stored) => {
            this.finished.set(ref.id, { ok: true, at: Date.now(), stored });
            this.deps.logger.info({ asset: ref, from, stored }, 'closes backfilled from MOEX ISS history');
          },
          (err: unknown) => {
            this.finished.set(ref.id, { ok: false, at: Date.now(), stored: 0 });
            this.deps.logger.warn({ err, asset: ref, from }, 'closes backfill from MOEX ISS history failed; tried again on a later request');
          },
        )
        .finally(() => this.running.delete(ref.id));
      this.running.set(ref.id, run);
    }
    return refs.filter((r) => this.running.has(r.id) || justStored.has(r.id));
  }

  /** Resolves when every backfill in flight has ended (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running.size) await Promise.all(this.running.values());
  }

  /** Fetches and stores one asset's history; the number of closes stored. */
  async backfill(ref: AssetRef, from: string): Promise<number> {
    const place = HISTORY_MARKETS[ref.type];
    const [asset] = await this.deps.db.query<{ ticker: string; board: string | null; face_value: string | null }>(
      `select a.ticker, a.board, b.face_value::text from assets a left join bonds b on b.asset_id = a.id where a.id = $1 and a.type = $2`,
      [ref.id, ref.type],
    );
    if (!place || !asset) return 0;
    // Percent of face for bonds: without the face value their closes cannot be money.
    if (ref.type === 'bond' && !asset.face_value) return 0;
    const where = { ...place, board: asset.board ?? place.board, secid: asset.ticker };
    const closes = new Map<string, number>();
    let start = 0;
    for (let page = 0; page < MAX_PAGES; page++) {
      const parsed = parseIssHistory(await this.deps.iss.history(where, from, start, this.deps.signal), { secid: where.secid, board: where.board });
      for (const c of parsed.closes) closes.set(c.date, c.close);
      if (parsed.nextStart === null || parsed.nextStart <= start) break;
      start = parsed.nextStart;
    }
    const today = this.deps.marketToday();
    const days = [...closes].filter(([date]) => date < today);
    if (days.length === 0) return 0;
    return this.deps.db.transaction(async (tx) => {
      // Under the rates' lock: a rate write reads the closes for the 7-day base, it must not interleave with this.
      await lockRateWrites(tx);
      const rows = await tx.query(
        `insert into asset_daily_closes (asset_id, trade_date, close)
         select $1, d, c::numeric * $4::numeric from unnest($2::date[], $3::text[]) as u(d, c)
         on conflict (asset_id, trade_date) do nothing
         returning 1`,
        [ref.id, days.map(([d]) => d), days.map(([, c]) => String(c)), ref.type === 'bond' ? `${asset.face_value}e-2` : '1'],
      );
      return rows.length;
    });
  }
}
