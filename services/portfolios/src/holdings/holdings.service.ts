import { getHoldingsRequestSchema, type GetHoldingsReply, type Holdings, type HoldingsTotals } from '@invest/contracts';
import { type Db, type Logger, ServiceError } from '@invest/platform';
import { parseRequest } from '../common/request.js';
import { loadDealsForStatistics } from '../deals/deal.repository.js';
import { findAssets } from '../prices/asset-catalog.repository.js';
import { aggregateDeals } from '../statistics/aggregate-deals.js';
import { loadState, saveState } from '../statistics/statistics-cache.repository.js';
import { DEFAULT_CACHE_TTL } from '../statistics/statistics.service.js';
import type { PortfolioState } from '../statistics/statistics.types.js';
import { computeHoldings } from './holdings.js';
import { type PortfolioVersion, portfolioVersions } from './portfolio-versions.query.js';

/**
 * Holdings of a portfolio (rows and totals) and the totals of each of a user's portfolios for the list. Reads the
 * statistics' state cache at the portfolio's current version (aggregating the deals and writing it when absent)
 * and the current prices, so its figures are the statistics' own.
 */
export class HoldingsService {
  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    private readonly stateTtlSeconds: number = DEFAULT_CACHE_TTL.stateSeconds,
  ) {}

  async get(userId: string, input: unknown): Promise<GetHoldingsReply> {
    const { portfolio_id: portfolioId } = parseRequest(getHoldingsRequestSchema, input, { portfolio_id: 'Portfolio' });
    const started = performance.now();
    const [portfolio] = await portfolioVersions(this.db, userId, portfolioId);
    const computed = portfolio && (await this.holdingsOf(portfolio));
    if (!computed) throw ServiceError.notFound('Portfolio');
    this.logger.debug({ portfolioId, source: computed.source, ms: +(performance.now() - started).toFixed(2) }, 'holdings served');
    return { data: computed.holdings, meta: { portfolio_id: portfolioId, stats_version: computed.statsVersion } };
  }

  /** The holdings totals of each of the user's portfolios, by portfolio id. */
  async totalsByPortfolio(userId: string): Promise<Map<number, HoldingsTotals>> {
    const totals = new Map<number, HoldingsTotals>();
    for (const p of await portfolioVersions(this.db, userId)) {
      const computed = await this.holdingsOf(p);
      if (computed) totals.set(p.id, computed.holdings.totals);
    }
    return totals;
  }

  /** Undefined when the portfolio was deleted meanwhile. */
  private async holdingsOf(p: PortfolioVersion): Promise<{ holdings: Holdings; statsVersion: number; source: 'state' | 'computed' } | undefined> {
    const cached = await loadState(this.db, p.id, p.statsVersion, { withoutCashFlows: true });
    let computed: { state: PortfolioState; statsVersion: number; currency: string; source: 'state' | 'computed' };
    if (cached) {
      computed = { state: cached.state, statsVersion: p.statsVersion, currency: p.currencyCode, source: 'state' };
    } else {
      // Deals, version and currency in one statement (one snapshot), as the statistics read them.
      const loaded = await loadDealsForStatistics(this.db, p.id);
      if (!loaded) return undefined;
      const state = aggregateDeals(loaded.deals);
      await saveState(this.db, p.id, loaded.version, state, this.stateTtlSeconds);
      computed = { state, statsVersion: loaded.version, currency: loaded.currencyCode, source: 'computed' };
    }
    const quotes = await findAssets(this.db, computed.state.assets.map((a) => a.asset));
    return { holdings: computeHoldings({ state: computed.state, quotes, currency: computed.currency }), statsVersion: computed.statsVersion, source: computed.source };
  }
}
