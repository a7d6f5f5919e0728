import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type ListSharesReply, type RpcRequest, Subjects, listSharesQuerySchema } from '@invest/contracts';
import { type CoalescingCache, type Db, parseOrThrow } from '@invest/platform';
import { listShares } from './list-shares.query.js';

/**
 * `screener.shares.list`. `marketToday` is the calendar date (`YYYY-MM-DD`) in the market time zone; `cache` holds
 * pages (identical concurrent requests share one query) and is cleared when market data change.
 */
export function createListSharesHandler({ db, marketToday, cache }: { db: Db; marketToday: () => string; cache: CoalescingCache<ListSharesReply> }) {
  @Controller()
  class ListSharesHandler {
    /** A page of screener rows: `{ data, meta }`. */
    @MessagePattern(Subjects.screener.sharesList)
    list(@Payload() request: RpcRequest<unknown>): Promise<ListSharesReply> {
      const query = parseOrThrow(listSharesQuerySchema, request?.data ?? {});
      const today = marketToday();
      // The parsed query has a fixed key order, so equal queries give equal keys.
      return cache.get(`${today} ${JSON.stringify(query)}`, () => listShares(db, query, today));
    }
  }
  return ListSharesHandler;
}
