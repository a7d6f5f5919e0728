import {
  createPortfolioRequestSchema,
  type DeletedReply,
  type ListPortfoliosReply,
  portfolioIdRequestSchema,
  type PortfolioReply,
  Subjects,
  updatePortfolioRequestSchema,
} from '@invest/contracts';
import { createLogger, type Db, idempotent, lockQuotaOwner, parseOrThrow, requestFingerprint, requireBelowQuota, ServiceError } from '@invest/platform';
import { DEFAULT_LIMITS, type PortfoliosLimits } from '../common/limits.js';
import { HoldingsService } from '../holdings/holdings.service.js';
import { parseRequest } from '../common/request.js';
import { num } from '../common/sql-values.js';
import { recordPortfolioCreated, recordPortfolioDeleted } from '../events/portfolio-events.recorder.js';
import { findPortfolio, invalidateStatistics, listPortfolios, lockPortfolio } from './portfolio.repository.js';

const NOT_FOUND = 'Portfolio';

/** Portfolios of one user: a user only ever sees and changes their own (others' are "not found"). */
export class PortfolioService {
  constructor(
    private readonly db: Db,
    private readonly limits: Pick<PortfoliosLimits, 'portfoliosPerUser'> = DEFAULT_LIMITS,
    private readonly holdings: Pick<HoldingsService, 'totalsByPortfolio'> = new HoldingsService(db, createLogger('portfolios')),
  ) {}

  /** With each portfolio's value, invested and gain, defined as in its holdings totals. */
  async list(userId: string): Promise<ListPortfoliosReply> {
    const portfolios = await listPortfolios(this.db, userId);
    const totals = await this.holdings.totalsByPortfolio(userId);
    return {
      data: portfolios.map((p) => {
        const t = totals.get(p.id);
        // A portfolio created after the totals were read has no deals yet.
        return { ...p, value: t?.value ?? '0', invested: t?.invested ?? '0', gain: t?.gain ?? '0', gain_percentage: t?.gain_percentage ?? null };
      }),
    };
  }

  /** `idempotencyKey`: a repeat with the same key and request answers the first create's reply (see `idempotent`). */
  async create(userId: string, input: unknown, idempotencyKey?: string): Promise<PortfolioReply> {
    const req = parseOrThrow(createPortfolioRequestSchema, input);
    const subject = Subjects.portfolios.portfoliosCreate;
    const limit = this.limits.portfoliosPerUser;
    return idempotent<PortfolioReply>(this.db, { scope: subject, userId, key: idempotencyKey, fingerprint: requestFingerprint(subject, req) }, (finish) =>
      this.db.transaction(async (tx) => {
        // The user's creates queue here, so the count cannot go stale before the insert commits.
        await lockQuotaOwner(tx, `portfolios:${userId}`);
        await requireBelowQuota(tx, {
          limit,
          rowsSql: 'select 1 from portfolios where user_id = $1',
          params: [userId],
          field: 'portfolios',
          message: `You can have at most ${limit} portfolios (the portfolios per user limit).`,
        });
        const [row] = await tx.query<{ id: string }>(
          'insert into portfolios (user_id, name, currency_code) values ($1, $2, $3) returning id::text',
          [userId, req.name, req.currency_code],
        );
        const portfolioId = num(row!.id);
        await recordPortfolioCreated(tx, { portfolioId, userId, name: req.name, currencyCode: req.currency_code });
        return finish(tx, { data: (await findPortfolio(tx, userId, portfolioId))! });
      }),
    );
  }

  async get(userId: string, input: unknown): Promise<PortfolioReply> {
    const { id } = parseRequest(portfolioIdRequestSchema, input, { id: NOT_FOUND });
    const portfolio = await findPortfolio(this.db, userId, id);
    if (!portfolio) throw ServiceError.notFound(NOT_FOUND);
    return { data: portfolio };
  }

  async update(userId: string, input: unknown): Promise<PortfolioReply> {
    const req = parseRequest(updatePortfolioRequestSchema, input, { id: NOT_FOUND });
    await this.db.transaction(async (tx) => {
      const locked = await lockPortfolio(tx, userId, req.id);
      if (!locked) throw ServiceError.notFound(NOT_FOUND);
      if (req.name === undefined && req.currency_code === undefined) {
        throw ServiceError.validation({ name: ['Give a name or a currency_code to change.'] });
      }
      await tx.query('update portfolios set name = coalesce($2, name), currency_code = coalesce($3, currency_code), updated_at = now() where id = $1', [
        req.id,
        req.name ?? null,
        req.currency_code ?? null,
      ]);
      // The currency appears in the statistics: a new one makes cached answers stale.
      if (req.currency_code !== undefined && req.currency_code !== locked.currencyCode) await invalidateStatistics(tx, req.id);
    });
    return this.get(userId, { id: req.id });
  }

  async delete(userId: string, input: unknown): Promise<DeletedReply> {
    const { id } = parseRequest(portfolioIdRequestSchema, input, { id: NOT_FOUND });
    await this.db.transaction(async (tx) => {
      const locked = await lockPortfolio(tx, userId, id);
      if (!locked) throw ServiceError.notFound(NOT_FOUND);
      // Deals and cached statistics go with it (on delete cascade). PortfolioDeleted ends every membership.
      await tx.query('delete from portfolios where id = $1', [id]);
      await recordPortfolioDeleted(tx, { portfolioId: id, userId });
    });
    return { data: { id, deleted: true } };
  }
}
