import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type RpcRequest, Subjects } from '@invest/contracts';
import type { DealService } from './deal.service.js';
import { idempotencyKeyOf, requireUser } from '@invest/platform';

/** `portfolios.deals.*` */
export function createDealsHandler(deals: DealService) {
  @Controller()
  class DealsHandler {
    @MessagePattern(Subjects.portfolios.dealsList)
    list(@Payload() req: RpcRequest<unknown>) {
      return deals.list(requireUser(req.meta), req.data);
    }

    @MessagePattern(Subjects.portfolios.dealsCreate)
    create(@Payload() req: RpcRequest<unknown>) {
      return deals.create(requireUser(req.meta), req.data, idempotencyKeyOf(req.meta));
    }

    @MessagePattern(Subjects.portfolios.dealsDelete)
    delete(@Payload() req: RpcRequest<unknown>) {
      return deals.delete(requireUser(req.meta), req.data);
    }
  }
  return DealsHandler;
}
