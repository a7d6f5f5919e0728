import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type GetDividendsReply, getDividendsRequestSchema, type RpcRequest, Subjects } from '@invest/contracts';
import { type Db, parseOrThrow } from '@invest/platform';
import { getUpcomingDividends } from './get-dividends.query.js';

/** `screener.dividends.get`: the upcoming dividends (record date today or later, market day) of a set of assets. */
export function createDividendsHandler(deps: { db: Db; marketToday: () => string }) {
  @Controller()
  class DividendsHandler {
    @MessagePattern(Subjects.screener.dividendsGet)
    get(@Payload() request: RpcRequest<unknown>): Promise<GetDividendsReply> {
      const q = parseOrThrow(getDividendsRequestSchema, request?.data);
      return getUpcomingDividends(deps.db, { refs: q.refs, from: deps.marketToday() });
    }
  }
  return DividendsHandler;
}
