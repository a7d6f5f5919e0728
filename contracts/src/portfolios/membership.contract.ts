import { z } from 'zod';
import { type AssetRef } from '../common/assets.js';
import { resourceIdSchema } from './common.js';

/**
 * `portfolios.membership.get`: the assets of one portfolio (open positions) or watchlist (items) of the
 * requesting user (`meta.userId`); 404 when it is not theirs. Lets alerts validate a portfolio or
 * watchlist target and seed membership before the events arrive.
 */
export const getMembershipRequestSchema = z.object({
  target_type: z.enum(['portfolio', 'watchlist'], { error: 'The target type must be portfolio or watchlist.' }),
  target_id: resourceIdSchema,
});
export type GetMembershipRequest = z.infer<typeof getMembershipRequestSchema>;

export interface GetMembershipReply {
  data: { target_type: 'portfolio' | 'watchlist'; target_id: number; name: string; assets: AssetRef[] };
}
