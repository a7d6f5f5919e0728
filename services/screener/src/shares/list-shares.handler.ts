import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type ListSharesReply, type RpcRequest, Subjects, listSharesQuerySchema } from '@invest/contracts';
import { type CoalescingCache, type Db, parseOrThrow } from '@invest/platform';
import { LIST_SHARES_CACHE, MARKET_CLOCK, type MarketClock, SCREENER_DB } from '../screener.tokens.js';
import { listShares } from './list-shares.query.js';

@Controller()
export class ListSharesHandler {
  constructor(
    @Inject(SCREENER_DB) private readonly db: Db,
    @Inject(MARKET_CLOCK) private readonly clock: MarketClock,
    @Inject(LIST_SHARES_CACHE) private readonly cache: CoalescingCache<ListSharesReply>,
  ) {}

  /** A page of screener rows: `{ data, meta }`. */
  @MessagePattern(Subjects.screener.sharesList)
  list(@Payload() request: RpcRequest<unknown>): Promise<ListSharesReply> {
    const query = parseOrThrow(listSharesQuerySchema, request?.data ?? {});
    const today = this.clock.today();
    // The parsed query has a fixed key order, so equal queries give equal keys.
    return this.cache.get(`${today} ${JSON.stringify(query)}`, () => listShares(this.db, query, today));
  }
}
