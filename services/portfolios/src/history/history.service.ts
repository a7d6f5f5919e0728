import {
  type AssetRef,
  assetRefSchema,
  type GetClosesReply,
  type GetHistoryReply,
  getHistoryRequestSchema,
  MAX_HISTORY_POINTS,
  Subjects,
} from '@invest/contracts';
import { Decimal, type Db, type Logger, type RpcClient, ServiceError } from '@invest/platform';
import { z } from 'zod';
import { type Clock, utcDate } from '../common/clock.js';
import { parseRequest } from '../common/request.js';
import { loadDealsForHistory } from '../deals/deal.repository.js';
import { portfolioVersions } from '../holdings/portfolio-versions.query.js';
import { findAssets } from '../prices/asset-catalog.repository.js';
import { money } from '../statistics/position-figures.js';
import { assetKey } from '../statistics/statistics.types.js';
import type { HistoryCache } from './history.cache.js';
import { checkedPage, type ClosesPage, joinPages } from './closes-pages.js';
import { type AssetCloses, rangeStart, thinPoints, type ValueHistory, valueHistory, withLivePrices } from './value-history.js';

/**
 * `getClosesReplySchema` with the two long arrays only checked to be arrays: their hundreds of thousands of cells are
 * checked as they are read (a day a whole number after the previous one, a unit count a safe integer or digits), at
 * a fraction of zod's cost.
 */
const closesReplySchema = z.object({
  data: z.array(
    z.object({
      type: z.string(),
      id: z.number().int(),
      start: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
      days: z.custom<unknown[]>(Array.isArray),
      scale: z.number().int().nonnegative().max(255),
      units: z.custom<unknown[]>(Array.isArray),
    }),
  ),
  next_after: z.object({ asset_id: z.number().int(), date: z.string() }).nullable(),
  backfilling: z.array(assetRefSchema),
});

/** At most this many pages of closes per read (20,000 closes each): 500 assets over ~40 years. */
const MAX_CLOSES_PAGES = 100;

/**
 * A portfolio's value and invested amount per day since its first deal (`valueHistory` over its deals and the
 * screener's daily closes), cached by statistics version and day (HistoryCache); the last day is valued at the
 * current prices of the local price table, as the holdings are.
 */
export class HistoryService {
  constructor(
    private readonly db: Db,
    private readonly rpc: RpcClient,
    private readonly cache: HistoryCache,
    private readonly logger: Logger,
    private readonly clock: Clock,
  ) {}

  async get(userId: string, input: unknown): Promise<GetHistoryReply> {
    const { portfolio_id: portfolioId, range } = parseRequest(getHistoryRequestSchema, input, { portfolio_id: 'Portfolio' });
    const started = performance.now();
    const [portfolio] = await portfolioVersions(this.db, userId, portfolioId);
    if (!portfolio) throw ServiceError.notFound('Portfolio');
    const today = utcDate(this.clock());
    let history = this.cache.get(portfolioId, portfolio.statsVersion, today);
    let statsVersion = portfolio.statsVersion;
    let currency = portfolio.currencyCode;
    let complete = true;
    const source = history ? 'cache' : 'computed';
    if (!history) {
      // Deals, version and currency in one statement (one snapshot), as the statistics read them.
      const loaded = await loadDealsForHistory(this.db, portfolioId);
      if (!loaded) throw ServiceError.notFound('Portfolio');
      ({ version: statsVersion, currencyCode: currency } = loaded);
      // A deal may be dated up to today in UTC+14: the series runs to it.
      const to = loaded.deals.reduce((max, d) => (d.date > max ? d.date : max), today);
      const from = loaded.deals.reduce((min, d) => (d.date < min ? d.date : min), to);
      const refs = [...new Map(loaded.deals.map((d) => [assetKey(d.asset), d.asset])).values()];
      const closes = refs.length ? await this.closesOf(refs, from, to) : { closes: new Map<string, AssetCloses>(), backfilling: [] };
      complete = closes.backfilling.length === 0;
      history = valueHistory(loaded.deals, closes.closes, to);
      if (complete) this.cache.set(portfolioId, statsVersion, today, history);
      else this.logger.info({ portfolioId, backfilling: closes.backfilling }, 'value history waits for the history of some assets');
    }
    const points = await this.livePoints(history);
    const to = points.at(-1)?.date ?? today;
    const start = rangeStart(range, to);
    const shown = thinPoints(start ? points.filter((p) => p.date >= start) : points, MAX_HISTORY_POINTS);
    this.logger.debug({ portfolioId, range, source, points: shown.points.length, ms: +(performance.now() - started).toFixed(2) }, 'value history served');
    return {
      data: { currency, points: shown.points.map((p) => ({ date: p.date, value: money(p.value), invested: money(p.invested) })) },
      meta: { portfolio_id: portfolioId, range, source, step_days: shown.step, complete, stats_version: statsVersion },
    };
  }

  private async livePoints(history: ValueHistory) {
    if (history.positions.length === 0) return history.points;
    const quotes = await findAssets(this.db, history.positions.map((p) => p.asset));
    const live = new Map<string, Decimal>();
    for (const [key, q] of quotes) if (q.currentRate !== null && q.currentRate > 0) live.set(key, Decimal.of(q.currentRate));
    return withLivePrices(history, live);
  }

  /** The screener's closes of the assets over [from, to] (and the last one before), page by page. */
  private async closesOf(refs: AssetRef[], from: string, to: string): Promise<{ closes: Map<string, AssetCloses>; backfilling: AssetRef[] }> {
    const pages = new Map<string, ClosesPage[]>();
    let backfilling: AssetRef[] = [];
    let after: GetClosesReply['next_after'] = null;
    for (let page = 0; page < MAX_CLOSES_PAGES; page++) {
      try {
        const reply = closesReplySchema.parse(await this.rpc.request(Subjects.screener.closesGet, { refs, from, to, ...(after ? { after } : {}) }));
        if (page === 0) backfilling = reply.backfilling;
        for (const row of reply.data) {
          const key = assetKey({ type: row.type as AssetRef['type'], id: row.id });
          const list = pages.get(key) ?? [];
          list.push(checkedPage(row, list.at(-1)));
          pages.set(key, list);
        }
        after = reply.next_after;
      } catch (err) {
        if (err instanceof ServiceError) throw err;
        this.logger.error({ err }, 'screener.closes.get answered in an unexpected shape');
        throw ServiceError.unavailable('The screener service answered unexpectedly.');
      }
      if (!after) break;
    }
    const closes = new Map<string, AssetCloses>();
    for (const [key, list] of pages) closes.set(key, joinPages(list));
    return { closes, backfilling };
  }
}
