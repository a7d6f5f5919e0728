import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type RpcRequest, type SearchAssetsReply, Subjects, searchAssetsQuerySchema } from '@invest/contracts';
import { type Db, parseOrThrow } from '@invest/platform';
import { searchAssets } from './search-assets.query.js';

export function createSearchAssetsHandler(db: Db) {
  @Controller()
  class SearchAssetsHandler {
    /** Assets of every type by ticker, name or ISIN, best match first; custom assets only the requesting user's own. */
    @MessagePattern(Subjects.screener.assetsSearch)
    search(@Payload() request: RpcRequest<unknown>): Promise<SearchAssetsReply> {
      const query = parseOrThrow(searchAssetsQuerySchema, request?.data ?? {});
      return searchAssets(db, query, request?.meta?.userId);
    }
  }
  return SearchAssetsHandler;
}
