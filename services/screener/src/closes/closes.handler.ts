import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type AssetRef, type GetClosesReply, getClosesRequestSchema, type RpcRequest, Subjects } from '@invest/contracts';
import { type Db, parseOrThrow } from '@invest/platform';
import { getCloses } from './get-closes.query.js';

export interface ClosesHandlerDeps {
  db: Db;
  marketTz: string;
  /**
   * Starts fetching the history (from `from`) of assets that have no close stored, returning at once with the ones
   * it is fetching: those the caller should ask about again later. Absent: nothing is backfilled.
   */
  backfill?: { start(refs: readonly AssetRef[], from: string): AssetRef[] };
}

/** `screener.closes.get`: the daily closes of a set of assets over a date range (portfolios' value over time). */
export function createClosesHandler(deps: ClosesHandlerDeps) {
  @Controller()
  class ClosesHandler {
    @MessagePattern(Subjects.screener.closesGet)
    async get(@Payload() request: RpcRequest<unknown>): Promise<GetClosesReply> {
      const q = parseOrThrow(getClosesRequestSchema, request?.data);
      const { reply, empty } = await getCloses(deps.db, { ...q, marketTz: deps.marketTz });
      return { ...reply, backfilling: empty.length && deps.backfill ? deps.backfill.start(empty, q.from) : [] };
    }
  }
  return ClosesHandler;
}
