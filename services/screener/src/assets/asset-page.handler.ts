import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type GetAssetPageReply, type RpcRequest, Subjects, getAssetPageRequestSchema } from '@invest/contracts';
import { type Db, ServiceError, parseOrThrow } from '@invest/platform';
import { getAssetPage } from './asset-page.query.js';

/** `screener.assets.page`: the public page of one market asset; NotFound for an unknown ticker. */
export function createAssetPageHandler({ db, marketToday }: { db: Db; marketToday: () => string }) {
  @Controller()
  class AssetPageHandler {
    @MessagePattern(Subjects.screener.assetPage)
    async get(@Payload() request: RpcRequest<unknown>): Promise<GetAssetPageReply> {
      const q = parseOrThrow(getAssetPageRequestSchema, request?.data);
      const page = await getAssetPage(db, q, marketToday());
      if (!page) throw ServiceError.notFound('Asset');
      return { data: page };
    }
  }
  return AssetPageHandler;
}
