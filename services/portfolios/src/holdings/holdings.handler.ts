import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type RpcRequest, Subjects } from '@invest/contracts';
import { requireUser } from '@invest/platform';
import type { HoldingsService } from './holdings.service.js';

/** `portfolios.holdings.get`: the positions of one of the user's portfolios (the gateway's holdings route). */
export function createHoldingsHandler(holdings: HoldingsService) {
  @Controller()
  class HoldingsHandler {
    @MessagePattern(Subjects.portfolios.holdingsGet)
    get(@Payload() req: RpcRequest<unknown>) {
      return holdings.get(requireUser(req.meta), req.data);
    }
  }
  return HoldingsHandler;
}
