import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type RpcRequest, Subjects } from '@invest/contracts';
import { requireUser } from '@invest/platform';
import type { DividendsService } from './dividends.service.js';

/** `portfolios.dividends.get`: expected and received dividends of one of the user's portfolios (the gateway's dividends route). */
export function createDividendsHandler(dividends: DividendsService) {
  @Controller()
  class DividendsHandler {
    @MessagePattern(Subjects.portfolios.dividendsGet)
    get(@Payload() req: RpcRequest<unknown>) {
      return dividends.get(requireUser(req.meta), req.data);
    }
  }
  return DividendsHandler;
}
