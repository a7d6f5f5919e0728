import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type GetAssetsReply, type RpcRequest, Subjects, getAssetsRequestSchema } from '@invest/contracts';
import { type Db, parseOrThrow } from '@invest/platform';
import { getAssets } from './get-assets.query.js';

export function createGetAssetsHandler(db: Db) {
  @Controller()
  class GetAssetsHandler {
    /** Looks assets up by `{ type, id }` reference; references not in the reply do not exist (for this user). */
    @MessagePattern(Subjects.screener.assetsGet)
    get(@Payload() request: RpcRequest<unknown>): Promise<GetAssetsReply> {
      const { refs } = parseOrThrow(getAssetsRequestSchema, request?.data);
      return getAssets(db, refs, request?.meta?.userId);
    }
  }
  return GetAssetsHandler;
}
