import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type RpcRequest, Subjects } from '@invest/contracts';
import { ASSET_USES_SERVICE } from '../portfolios.tokens.js';
import type { AssetUsesService } from './asset-uses.service.js';

/** `portfolios.asset-uses.get` (internal: asked by the screener, no user). */
@Controller()
export class AssetUsesHandler {
  constructor(@Inject(ASSET_USES_SERVICE) private readonly uses: AssetUsesService) {}

  @MessagePattern(Subjects.portfolios.assetUsesGet)
  get(@Payload() req: RpcRequest<unknown>) {
    return this.uses.get(req.data);
  }
}
