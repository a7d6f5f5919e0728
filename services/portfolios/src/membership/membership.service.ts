import { type AssetType, type GetMembershipReply, getMembershipRequestSchema } from '@invest/contracts';
import { type Db, ServiceError } from '@invest/platform';
import { parseRequest } from '../common/request.js';
import { num } from '../common/sql-values.js';
import { OPEN_QUANTITY } from '../deals/deal.repository.js';

/** Which assets a portfolio (open positions) or a watchlist (items) of the user holds: for alerts. */
export class MembershipService {
  constructor(private readonly db: Db) {}

  async get(userId: string, input: unknown): Promise<GetMembershipReply> {
    const req = parseRequest(getMembershipRequestSchema, input, { target_id: 'Target' });
    const table = req.target_type === 'portfolio' ? 'portfolios' : 'watchlists';
    const [owner] = await this.db.query<{ name: string }>(`select name from ${table} where id = $1 and user_id = $2`, [req.target_id, userId]);
    if (!owner) throw ServiceError.notFound(req.target_type === 'portfolio' ? 'Portfolio' : 'Watchlist');
    const rows =
      req.target_type === 'portfolio'
        ? await this.db.query<{ asset_type: string; asset_id: string }>(
            `select asset_type, asset_id::text from deals where portfolio_id = $1 group by asset_type, asset_id
             having ${OPEN_QUANTITY} > 0
             order by asset_type, deals.asset_id`,
            [req.target_id],
          )
        : await this.db.query<{ asset_type: string; asset_id: string }>(
            'select asset_type, asset_id::text from watchlist_items where watchlist_id = $1 order by id',
            [req.target_id],
          );
    return {
      data: {
        target_type: req.target_type,
        target_id: req.target_id,
        name: owner.name,
        assets: rows.map((r) => ({ type: r.asset_type as AssetType, id: num(r.asset_id) })),
      },
    };
  }
}
