import { type GetDividendsReply, type GetPortfolioDividendsReply, getDividendsReplySchema, getPortfolioDividendsRequestSchema, Subjects } from '@invest/contracts';
import { type Db, type Logger, type RpcClient, ServiceError } from '@invest/platform';
import { parseRequest } from '../common/request.js';
import { loadDealsForStatistics } from '../deals/deal.repository.js';
import { portfolioVersions } from '../holdings/portfolio-versions.query.js';
import { findAssets } from '../prices/asset-catalog.repository.js';
import { assetKey } from '../statistics/statistics.types.js';
import { openPositions, portfolioDividends } from './portfolio-dividends.js';

/** Expected dividends of a portfolio's open positions (the screener's, over `screener.dividends.get`) and those received per year. */
export class DividendsService {
  constructor(
    private readonly db: Db,
    private readonly rpc: RpcClient,
    private readonly logger: Logger,
  ) {}

  async get(userId: string, input: unknown): Promise<GetPortfolioDividendsReply> {
    const { portfolio_id: portfolioId } = parseRequest(getPortfolioDividendsRequestSchema, input, { portfolio_id: 'Portfolio' });
    const [portfolio] = await portfolioVersions(this.db, userId, portfolioId);
    const loaded = portfolio && (await loadDealsForStatistics(this.db, portfolio.id));
    if (!loaded) throw ServiceError.notFound('Portfolio');
    const refs = openPositions(loaded.deals).map((p) => p.asset);
    // At most 500 refs a request (the screener's limit): a portfolio holds far fewer, but ask page by page anyway.
    const upcoming: GetDividendsReply['data'] = [];
    for (let i = 0; i < refs.length; i += 500) {
      upcoming.push(...getDividendsReplySchema.parse(await this.rpc.request(Subjects.screener.dividendsGet, { refs: refs.slice(i, i + 500) })).data);
    }
    const catalog = await findAssets(this.db, refs);
    const data = portfolioDividends({
      deals: loaded.deals,
      upcoming,
      describe: (ref) => {
        const a = catalog.get(assetKey(ref));
        return a && { ticker: a.ticker, title: a.name ?? a.ticker };
      },
    });
    this.logger.debug({ portfolioId, positions: refs.length, expected: data.expected.length }, 'dividends served');
    return { data, meta: { portfolio_id: portfolioId, currency: loaded.currencyCode } };
  }
}
