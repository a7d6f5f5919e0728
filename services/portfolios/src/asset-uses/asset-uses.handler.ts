import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type RpcRequest, Subjects } from '@invest/contracts';
import type { AssetUsesService } from './asset-uses.service.js';

/** `portfolios.asset-uses.get` (internal: asked by the screener, no user). */
export function createAssetUsesHandler(uses: AssetUsesService) {
  @Controller()
  class AssetUsesHandler {
    @MessagePattern(Subjects.portfolios.assetUsesGet)
    get(@Payload() req: RpcRequest<unknown>) {
      return uses.get(req.data);
    }
  }
  return AssetUsesHandler;
}
