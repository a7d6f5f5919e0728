import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type GetAssetsReply, type RpcRequest, Subjects, getAssetsRequestSchema } from '@invest/contracts';
import { type Db, parseOrThrow } from '@invest/platform';
import { SCREENER_DB } from '../screener.tokens.js';
import { getAssets } from './get-assets.query.js';

@Controller()
export class GetAssetsHandler {
  constructor(@Inject(SCREENER_DB) private readonly db: Db) {}

  /** Looks assets up by `{ type, id }` reference; references not in the reply do not exist (for this user). */
  @MessagePattern(Subjects.screener.assetsGet)
  get(@Payload() request: RpcRequest<unknown>): Promise<GetAssetsReply> {
    const { refs } = parseOrThrow(getAssetsRequestSchema, request?.data);
    return getAssets(this.db, refs, request?.meta?.userId);
  }
}
