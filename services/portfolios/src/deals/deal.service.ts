import {
  createDealRequestSchema,
  type DealReply,
  type DeletedReply,
  deleteDealRequestSchema,
  type ListDealsReply,
  listDealsRequestSchema,
  pageMeta,
  Subjects,
} from '@invest/contracts';
import { type Db, Decimal, idempotent, requestFingerprint, requireBelowQuota, ServiceError, type Tx } from '@invest/platform';
import { checkAssetForReopening, checkAssetForUse } from '../asset-uses/asset-use.js';
import { type Clock, latestAllowedDealDate } from '../common/clock.js';
import { DEFAULT_LIMITS, type PortfoliosLimits } from '../common/limits.js';
import { parseRequest } from '../common/request.js';
import { recordPositionChange } from '../events/portfolio-events.recorder.js';
import { invalidateStatistics, lockPortfolio } from '../portfolios/portfolio.repository.js';
import type { AssetLookup } from '../prices/asset-lookup.service.js';
import { finalHolding, findOversell, type HoldingDeal, type Oversell, positionTransition } from './holding-timeline.js';
import { assetDeals, findDeal, insertDeal, listDeals } from './deal.repository.js';

const PORTFOLIO = 'Portfolio';
const DEAL = 'Deal';
const fmt = (n: Decimal) => n.round(8).toString();

async function requireOwnedPortfolio(db: Db | Tx, userId: string, portfolioId: number): Promise<void> {
  const rows = await db.query('select 1 from portfolios where id = $1 and user_id = $2', [portfolioId, userId]);
  if (rows.length === 0) throw ServiceError.notFound(PORTFOLIO);
}

/** Deals of a portfolio. Every change is checked against the asset's history and invalidates the statistics caches. */
export class DealService {
  constructor(
    private readonly db: Db,
    private readonly assets: AssetLookup,
    private readonly clock: Clock,
    private readonly limits: Pick<PortfoliosLimits, 'dealsPerPortfolio'> = DEFAULT_LIMITS,
  ) {}

  async list(userId: string, input: unknown): Promise<ListDealsReply> {
    const req = parseRequest(listDealsRequestSchema, input, { portfolio_id: PORTFOLIO });
    await requireOwnedPortfolio(this.db, userId, req.portfolio_id);
    const { rows, total } = await listDeals(this.db, req.portfolio_id, req.page, req.per_page);
    return { data: rows, meta: pageMeta(req, total, rows.length) };
  }

  /**
   * `idempotencyKey`: a repeat with the same key and request answers the first create's reply, before any check (see
   * `idempotent`): what they read may have changed since (the portfolio deleted, the asset gone).
   */
  async create(userId: string, input: unknown, idempotencyKey?: string): Promise<DealReply> {
    const req = parseRequest(createDealRequestSchema, input, { portfolio_id: PORTFOLIO });
    const subject = Subjects.portfolios.dealsCreate;
    const limit = this.limits.dealsPerPortfolio;
    return idempotent<DealReply>(this.db, { scope: subject, userId, key: idempotencyKey, fingerprint: requestFingerprint(subject, req) }, async (finish) => {
      if (req.date > latestAllowedDealDate(this.clock())) throw ServiceError.validation({ date: ['The date must not be in the future.'] });
      // Ownership before the (possibly remote) asset look-up: someone else's portfolio is simply not found.
      await requireOwnedPortfolio(this.db, userId, req.portfolio_id);
      // Confirmed in the transaction: a custom asset's deletion racing this add sees it, or refuses it (asset-use.ts).
      const use = await checkAssetForUse(this.db, this.assets, req.assetable, userId);
      return this.db.transaction(async (tx) => {
        const portfolio = await lockPortfolio(tx, userId, req.portfolio_id);
        if (!portfolio) throw ServiceError.notFound(PORTFOLIO);
        await use.confirm(tx);
        // Under the portfolio's row lock: concurrent deals of this portfolio cannot overshoot.
        await requireBelowQuota(tx, {
          limit,
          rowsSql: 'select 1 from deals where portfolio_id = $1',
          params: [portfolio.id],
          field: 'deals',
          message: `A portfolio can have at most ${limit} deals (the deals per portfolio limit).`,
        });
        const history = await assetDeals(tx, portfolio.id, req.assetable);
        const candidate: HoldingDeal = { id: Number.MAX_SAFE_INTEGER, type: req.type, quantity: Decimal.of(req.quantity), date: req.date };
        const oversell = findOversell([...history, candidate]);
        if (oversell) throw ServiceError.validation({ quantity: [oversellMessage(oversell, oversell.dealId === candidate.id ? null : oversell)] });
        const id = await insertDeal(tx, portfolio.id, { ...req, asset: req.assetable });
        const transition = positionTransition(finalHolding(history), finalHolding([...history, candidate]));
        if (transition) await recordPositionChange(tx, transition, { portfolioId: portfolio.id, userId, asset: req.assetable });
        await invalidateStatistics(tx, portfolio.id);
        const deal = await findDeal(tx, portfolio.id, id);
        if (!deal) throw ServiceError.notFound(DEAL);
        return finish(tx, { data: deal });
      });
    });
  }

  async delete(userId: string, input: unknown): Promise<DeletedReply> {
    const req = parseRequest(deleteDealRequestSchema, input, { portfolio_id: PORTFOLIO, deal_id: DEAL });
    // Deleting a sell can open a position again: on a custom asset, only while it exists (asset-use.ts). Ownership
    // before the (possibly remote) asset look-up, as for a create.
    await requireOwnedPortfolio(this.db, userId, req.portfolio_id);
    const before = await findDeal(this.db, req.portfolio_id, req.deal_id);
    const reopening = before
      ? await checkAssetForReopening(this.db, this.assets, before.assetable, userId, 'Deleting this deal would open a position again in an asset that no longer exists.')
      : undefined;
    await this.db.transaction(async (tx) => {
      const portfolio = await lockPortfolio(tx, userId, req.portfolio_id);
      if (!portfolio) throw ServiceError.notFound(PORTFOLIO);
      const deal = await findDeal(tx, portfolio.id, req.deal_id);
      if (!deal) throw ServiceError.notFound(DEAL);
      const history = await assetDeals(tx, portfolio.id, deal.assetable);
      const remaining = history.filter((d) => d.id !== deal.id);
      const oversell = findOversell(remaining);
      if (oversell) {
        throw ServiceError.validation({
          deal: [`Deleting this deal would leave the sell of ${fmt(oversell.sold)} on ${oversell.date} with only ${fmt(oversell.held)} held.`],
        });
      }
      const transition = positionTransition(finalHolding(history), finalHolding(remaining));
      // (A deal's asset never changes: the one read before the transaction is this deal's.)
      if (transition === 'opened') await reopening?.confirm(tx);
      await tx.query('delete from deals where id = $1 and portfolio_id = $2', [deal.id, portfolio.id]);
      if (transition) await recordPositionChange(tx, transition, { portfolioId: portfolio.id, userId, asset: deal.assetable });
      await invalidateStatistics(tx, portfolio.id);
    });
    return { data: { id: req.deal_id, deleted: true } };
  }
}

/** The new sell itself is too large, or (a backdated buy/sell) it makes a later recorded sell too large. */
function oversellMessage(o: Oversell, later: Oversell | null): string {
  return later
    ? `This deal would leave the sell of ${fmt(o.sold)} on ${o.date} with only ${fmt(o.held)} held.`
    : `Cannot sell ${fmt(o.sold)}: only ${fmt(o.held)} held on ${o.date}.`;
}
