import { getStatisticsRequestSchema, type GetStatisticsReply, type StatisticsSource } from '@invest/contracts';
import { type Db, type Logger, ServiceError } from '@invest/platform';
import { type Clock, utcDate } from '../common/clock.js';
import { parseRequest } from '../common/request.js';
import { loadDealsForStatistics } from '../deals/deal.repository.js';
import { findAssets } from '../prices/asset-catalog.repository.js';
import { aggregateDeals } from './aggregate-deals.js';
import { hydrateStatistics } from './hydrate-statistics.js';
import { loadState, probeStatistics, saveHydrated, saveState } from './statistics-cache.repository.js';
import type { PortfolioState } from './statistics.types.js';

export interface StatisticsCacheTtl {
  /** Full answers (state + prices): 50 seconds by the spec. */
  hydratedSeconds: number;
  /** Price-independent states: 7 days by the spec. */
  stateSeconds: number;
}

export const DEFAULT_CACHE_TTL: StatisticsCacheTtl = { hydratedSeconds: 50, stateSeconds: 7 * 24 * 3600 };

/**
 * Portfolio statistics, read with priority: hydrated cache -> state cache (+ current prices) -> computed
 * from the deals (then both caches are written). Caches live in Postgres, so every instance shares them.
 */
export class StatisticsService {
  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    private readonly clock: Clock,
    private readonly ttl: StatisticsCacheTtl = DEFAULT_CACHE_TTL,
  ) {}

  async get(userId: string, input: unknown): Promise<GetStatisticsReply> {
    const { portfolio_id: portfolioId } = parseRequest(getStatisticsRequestSchema, input, { portfolio_id: 'Portfolio' });
    const started = performance.now();
    const probe = await probeStatistics(this.db, userId, portfolioId);
    if (!probe) throw ServiceError.notFound('Portfolio');

    let reply: GetStatisticsReply;
    if (probe.hydrated) {
      reply = {
        data: probe.hydrated.body,
        meta: this.meta('hydrated', portfolioId, probe.hydrated.computedAt, probe.hydrated.stateComputedAt, probe.statsVersion),
      };
    } else {
      let source: StatisticsSource = 'state';
      let statsVersion = probe.statsVersion;
      // The version and the currency go together: a currency change bumps the version.
      let currency = probe.currencyCode;
      let state: PortfolioState;
      let stateComputedAt: string;
      const cached = await loadState(this.db, portfolioId, statsVersion);
      if (cached) {
        ({ state, computedAt: stateComputedAt } = cached);
      } else {
        source = 'computed';
        const loaded = await loadDealsForStatistics(this.db, portfolioId);
        if (!loaded) throw ServiceError.notFound('Portfolio');
        statsVersion = loaded.version;
        currency = loaded.currencyCode;
        state = aggregateDeals(loaded.deals);
        stateComputedAt = await saveState(this.db, portfolioId, statsVersion, state, this.ttl.stateSeconds);
      }
      const refs = state.assets.map((a) => a.asset);
      const quotes = await findAssets(this.db, refs);
      const pricesVersion = Math.max(0, ...[...quotes.values()].map((q) => q.priceSeq));
      const body = hydrateStatistics({ state, quotes, currency, today: utcDate(this.clock()) });
      const computedAt = await saveHydrated(this.db, {
        portfolioId,
        statsVersion,
        pricesVersion,
        assets: refs,
        body,
        stateComputedAt,
        ttlSeconds: this.ttl.hydratedSeconds,
      });
      reply = { data: body, meta: this.meta(source, portfolioId, computedAt, stateComputedAt, statsVersion) };
    }
    this.logger.info(
      { portfolioId, source: reply.meta.source, statsVersion: reply.meta.stats_version, ms: +(performance.now() - started).toFixed(2) },
      'statistics served',
    );
    return reply;
  }

  private meta(source: StatisticsSource, portfolioId: number, computedAt: string, stateComputedAt: string, statsVersion: number): GetStatisticsReply['meta'] {
    return { source, portfolio_id: portfolioId, computed_at: computedAt, state_computed_at: stateComputedAt, stats_version: statsVersion };
  }
}
