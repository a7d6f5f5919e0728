import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type ListSharesReply, type RpcRequest, Subjects, listSharesQuerySchema } from '@invest/contracts';
import { type Db, parseOrThrow } from '@invest/platform';
import { MARKET_CLOCK, type MarketClock, SCREENER_DB } from '../screener.tokens.js';
import { listShares } from './list-shares.query.js';

@Controller()
export class ListSharesHandler {
  constructor(
    @Inject(SCREENER_DB) private readonly db: Db,
    @Inject(MARKET_CLOCK) private readonly clock: MarketClock,
  ) {}

  /** A page of screener rows: `{ data, meta }`. */
  @MessagePattern(Subjects.screener.sharesList)
  list(@Payload() request: RpcRequest<unknown>): Promise<ListSharesReply> {
    const query = parseOrThrow(listSharesQuerySchema, request?.data ?? {});
    return listShares(this.db, query, this.clock.today());
  }
}
