import {
  type AssetRef,
  type AssetSearchRow,
  DealImportSubjects,
  type DealImportPreviewReply,
  ErrorCode,
  type DealImportReply,
  type ImportAsset,
  type ImportedDealFields,
  type ImportPreviewRow,
  type ImportRowError,
  importDealsRequestSchema,
  previewDealImportRequestSchema,
  type SearchAssetsReply,
  Subjects,
} from '@invest/contracts';
import { type Db, Decimal, idempotent, type Logger, requestFingerprint, type RpcClient, ServiceError, type SqlClient, type Tx } from '@invest/platform';
import { type AssetUse, checkAssetForUse } from '../asset-uses/asset-use.js';
import { type Clock, latestAllowedDealDate } from '../common/clock.js';
import { DEFAULT_LIMITS, type PortfoliosLimits } from '../common/limits.js';
import { parseRequest } from '../common/request.js';
import { assetDeals } from '../deals/deal.repository.js';
import { finalHolding, type HoldingDeal, positionTransition } from '../deals/holding-timeline.js';
import { recordPositionChange } from '../events/portfolio-events.recorder.js';
import { invalidateStatistics, lockPortfolio } from '../portfolios/portfolio.repository.js';
import type { AssetLookup } from '../prices/asset-lookup.service.js';
import { assetKey } from '../statistics/statistics.types.js';
import { parseDealCsv } from './deal-csv.parser.js';
import { existingFingerprints, insertImportedDeals } from './deal-import.repository.js';
import { refuseOversells } from './import-holdings.js';
import { importFingerprints } from './import-fingerprint.js';

const PORTFOLIO = 'Portfolio';
const fmt = (n: Decimal) => n.round(8).toString();
/** Screener searches under way at once while the file's tickers are looked up. */
const SEARCH_CONCURRENCY = 8;
/** New deals get ids after every stored one, in file order, for the ordering rule of one date (deal-order.ts). */
const FIRST_NEW_ID = 2 ** 52;

/** A row on its way: what the file says, the asset it names, its fingerprint and what is wrong with it. */
interface ImportRow {
  /** Position in the file's rows. */
  index: number;
  line: number;
  deal: ImportedDealFields | null;
  asset: AssetRef | null;
  fingerprint: string | null;
  errors: ImportRowError[];
  values: Record<string, string>;
  duplicate: boolean;
}

/**
 * Deals from a CSV file (deal-csv.parser.ts): a preview that stores nothing, and an import that stores the new
 * valid rows in one transaction under the same rules as a single deal (asset, date, oversell, quota, position
 * events, statistics invalidation). Each stored row keeps its fingerprint, so the same file again adds nothing.
 */
export class DealImportService {
  constructor(
    private readonly db: Db,
    private readonly assets: AssetLookup,
    private readonly rpc: RpcClient,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly limits: Pick<PortfoliosLimits, 'dealsPerPortfolio'> = DEFAULT_LIMITS,
  ) {}

  async preview(userId: string, input: unknown): Promise<DealImportPreviewReply> {
    const req = parseRequest(previewDealImportRequestSchema, input, { portfolio_id: PORTFOLIO });
    const currency = await this.ownedPortfolioCurrency(userId, req.portfolio_id);
    const { format, separator, rows, found } = await this.readRows(userId, req.portfolio_id, currency, req.csv);
    await this.classify(this.db, req.portfolio_id, rows);
    const page = rows.slice(req.offset, req.offset + req.limit);
    const pageAssets = new Map<string, ImportAsset>();
    for (const r of page) {
      const a = r.asset && found.get(assetKey(r.asset));
      if (a) pageAssets.set(assetKey(a), a);
    }
    return {
      data: {
        format,
        separator,
        summary: summaryOf(rows),
        rows: page.map(
          (r): ImportPreviewRow => ({
            line: r.line,
            status: statusOf(r),
            deal: r.deal,
            asset: r.asset,
            errors: r.errors,
            values: r.errors.length > 0 ? r.values : null,
          }),
        ),
        assets: [...pageAssets.values()],
      },
    };
  }

  /** `idempotencyKey`: as for a single deal, a repeat with the same key and file answers the first reply. */
  async import(userId: string, input: unknown, idempotencyKey?: string): Promise<DealImportReply> {
    const req = parseRequest(importDealsRequestSchema, input, { portfolio_id: PORTFOLIO });
    const subject = DealImportSubjects.create;
    return idempotent<DealImportReply>(this.db, { scope: subject, userId, key: idempotencyKey, fingerprint: requestFingerprint(subject, req) }, async (finish) => {
      const currency = await this.ownedPortfolioCurrency(userId, req.portfolio_id);
      const { rows } = await this.readRows(userId, req.portfolio_id, currency, req.csv);
      // The uses are checked with the screener before the transaction and confirmed in it, as for one deal.
      const uses = new Map<string, AssetUse>();
      const gone = new Set<string>();
      for (const r of rows) {
        if (!r.asset || r.errors.length > 0 || uses.has(assetKey(r.asset)) || gone.has(assetKey(r.asset))) continue;
        try {
          uses.set(assetKey(r.asset), await checkAssetForUse(this.db, this.assets, r.asset, userId));
        } catch (err) {
          // Found by the search a moment ago, gone now (a custom asset deleted): its rows fail, not the whole file.
          if (!(err instanceof ServiceError && err.code === ErrorCode.Validation)) throw err;
          gone.add(assetKey(r.asset));
        }
      }
      for (const r of rows) {
        if (r.asset && gone.has(assetKey(r.asset))) r.errors.push({ field: 'ticker', code: 'asset_not_found', message: 'The asset no longer exists.' });
      }
      const started = Date.now();
      const reply = await this.db.transaction(async (tx) => {
        const portfolio = await lockPortfolio(tx, userId, req.portfolio_id);
        if (!portfolio) throw ServiceError.notFound(PORTFOLIO);
        // Under the portfolio's row lock: what is stored now, and no other deal change of it until this commits.
        const histories = await this.classify(tx, portfolio.id, rows);
        const created = rows.filter((r) => statusOf(r) === 'new');
        await this.requireRoomFor(tx, portfolio.id, created.length);
        for (const key of new Set(created.map((r) => assetKey(r.asset!)))) await uses.get(key)!.confirm(tx);
        const inserted = await insertImportedDeals(
          tx,
          portfolio.id,
          created.map((r) => ({ ...r.deal!, asset: r.asset!, fingerprint: r.fingerprint! })),
        );
        for (const [key, history] of histories) {
          const added = created.filter((r) => assetKey(r.asset!) === key).map((r) => holdingOf(r, r.index));
          if (added.length === 0) continue;
          const transition = positionTransition(finalHolding(history), finalHolding([...history, ...added]));
          if (transition) await recordPositionChange(tx, transition, { portfolioId: portfolio.id, userId, asset: created.find((r) => assetKey(r.asset!) === key)!.asset! });
        }
        if (inserted > 0) await invalidateStatistics(tx, portfolio.id);
        const summary = summaryOf(rows);
        return finish(tx, { data: { created: inserted, duplicates: summary.duplicates, errors: summary.errors, rows: summary.rows } });
      });
      this.logger.info({ portfolioId: req.portfolio_id, ...reply.data, ms: Date.now() - started }, 'deals imported from CSV');
      return reply;
    });
  }

  private async ownedPortfolioCurrency(userId: string, portfolioId: number): Promise<string> {
    const [row] = await this.db.query<{ currency_code: string }>('select currency_code from portfolios where id = $1 and user_id = $2', [portfolioId, userId]);
    if (!row) throw ServiceError.notFound(PORTFOLIO);
    return row.currency_code;
  }

  /** The file's rows with their fields, assets and fingerprints; what needs no stored deal is checked here. */
  private async readRows(userId: string, portfolioId: number, currency: string, csv: string) {
    const parsed = parseDealCsv(csv);
    if (!parsed.ok) throw ServiceError.validation({ file: [parsed.message] });
    const fingerprints = importFingerprints(portfolioId, parsed.rows.map((r) => r.deal));
    const latest = latestAllowedDealDate(this.clock());
    const rows: ImportRow[] = parsed.rows.map((r, i) => ({ ...r, index: i, asset: null, fingerprint: fingerprints[i] ?? null, errors: [...r.errors], duplicate: false }));
    for (const r of rows) {
      if (!r.deal) continue;
      if (r.deal.date > latest) r.errors.push({ field: 'date', code: 'future_date', message: 'The date must not be in the future.' });
      if (r.deal.currency !== null && r.deal.currency !== currency) {
        r.errors.push({ field: 'currency', code: 'currency_mismatch', message: `Prices are in the portfolio's currency, ${currency}; this row is in ${r.deal.currency}.` });
      }
    }
    const found = await this.resolveAssets(userId, rows);
    return { format: parsed.format, separator: parsed.separator, rows, found };
  }

  /**
   * Finds the asset each row names, by ticker (narrowed by asset type and ISIN when given) or by ISIN, through
   * the screener's search as the user (their own custom assets included). One search per distinct name.
   */
  private async resolveAssets(userId: string, rows: ImportRow[]): Promise<Map<string, ImportAsset>> {
    const nameOf = (d: ImportedDealFields) => `${d.ticker ?? ''}|${d.isin ?? ''}|${d.asset_type ?? ''}`;
    const names = [...new Map(rows.filter((r) => r.deal && r.errors.length === 0).map((r) => [nameOf(r.deal!), r.deal!])).entries()];
    const matches = new Map<string, AssetSearchRow[]>();
    for (let i = 0; i < names.length; i += SEARCH_CONCURRENCY) {
      await Promise.all(
        names.slice(i, i + SEARCH_CONCURRENCY).map(async ([name, d]) => {
          const reply = await this.rpc.request<SearchAssetsReply>(
            Subjects.screener.assetsSearch,
            { search: d.ticker ?? d.isin, ...(d.asset_type ? { type: d.asset_type } : {}), limit: 50 },
            { userId },
          );
          matches.set(
            name,
            reply.data.filter((a) => (d.ticker === null || a.ticker.toUpperCase() === d.ticker) && (d.isin === null || (a.isin ?? '').toUpperCase() === d.isin)),
          );
        }),
      );
    }
    const found = new Map<string, ImportAsset>();
    for (const r of rows) {
      if (!r.deal || r.errors.length > 0) continue;
      const m = matches.get(nameOf(r.deal)) ?? [];
      const what = r.deal.ticker ?? r.deal.isin;
      if (m.length === 0) {
        // Two whole sentences: each is a key of the gateway's Russian catalog (docs/decisions/0035-localized-errors.md).
        const message = r.deal.asset_type ? `No asset ${what} was found among ${r.deal.asset_type} assets.` : `No asset ${what} was found.`;
        r.errors.push({ field: r.deal.ticker ? 'ticker' : 'isin', code: 'asset_not_found', message });
      } else if (m.length > 1) {
        r.errors.push({ field: 'asset_type', code: 'asset_ambiguous', message: `Several assets are called ${what} (${m.map((a) => a.type).join(', ')}): give the asset type or the ISIN.` });
      } else {
        const a = m[0]!;
        r.asset = { type: a.type, id: a.id };
        found.set(assetKey(a), { type: a.type, id: a.id, ticker: a.ticker, name: a.name });
      }
    }
    return found;
  }

  /**
   * Marks rows already imported (their fingerprint is stored) and refuses valid rows that would oversell, against
   * the deals stored now. Answers each asset's stored history.
   */
  private async classify(sql: SqlClient, portfolioId: number, rows: ImportRow[]): Promise<Map<string, HoldingDeal[]>> {
    const stored = await existingFingerprints(sql, portfolioId, rows.flatMap((r) => (r.fingerprint ? [r.fingerprint] : [])));
    for (const r of rows) r.duplicate = r.fingerprint !== null && stored.has(r.fingerprint);
    const byAsset = new Map<string, { asset: AssetRef; rows: ImportRow[] }>();
    for (const r of rows) {
      if (statusOf(r) !== 'new') continue;
      const key = assetKey(r.asset!);
      const group = byAsset.get(key) ?? { asset: r.asset!, rows: [] };
      group.rows.push(r);
      byAsset.set(key, group);
    }
    const histories = new Map<string, HoldingDeal[]>();
    for (const [key, group] of byAsset) {
      const history = await assetDeals(sql, portfolioId, group.asset);
      histories.set(key, history);
      const candidates = group.rows.map((r) => holdingOf(r, r.index));
      for (const [id, o] of refuseOversells(history, candidates)) {
        const message = o.own
          ? `Cannot sell ${fmt(o.sold)}: only ${fmt(o.held)} held on ${o.date}.`
          : `This deal would leave the sell of ${fmt(o.sold)} on ${o.date} with only ${fmt(o.held)} held.`;
        rows[id - FIRST_NEW_ID]!.errors.push({ field: 'quantity', code: 'oversell', message });
      }
    }
    return histories;
  }

  private async requireRoomFor(tx: Tx, portfolioId: number, adding: number): Promise<void> {
    const limit = this.limits.dealsPerPortfolio;
    const [row] = await tx.query<{ n: number }>('select count(*)::int as n from deals where portfolio_id = $1', [portfolioId]);
    const stored = row?.n ?? 0;
    if (stored + adding > limit) {
      throw ServiceError.validation({ deals: [`A portfolio can have at most ${limit} deals (the deals per portfolio limit): it has ${stored}, the file would add ${adding}.`] });
    }
  }
}

const holdingOf = (r: ImportRow, index: number): HoldingDeal => ({ id: FIRST_NEW_ID + index, type: r.deal!.type, quantity: Decimal.of(r.deal!.quantity), date: r.deal!.date });

function statusOf(r: ImportRow): 'new' | 'duplicate' | 'error' {
  // A row stored before is a duplicate whatever holds today: it is what was imported then.
  if (r.duplicate) return 'duplicate';
  return r.errors.length > 0 || !r.deal || !r.asset ? 'error' : 'new';
}

function summaryOf(rows: readonly ImportRow[]) {
  const count = (s: string) => rows.filter((r) => statusOf(r) === s).length;
  return { rows: rows.length, new: count('new'), duplicates: count('duplicate'), errors: count('error') };
}
