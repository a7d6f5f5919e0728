import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type RpcRequest, Subjects } from '@invest/contracts';
import { DEAL_SERVICE } from '../portfolios.tokens.js';
import type { DealService } from './deal.service.js';
import { idempotencyKeyOf, requireUser } from '@invest/platform';

/** `portfolios.deals.*` */
@Controller()
export class DealsHandler {
  constructor(@Inject(DEAL_SERVICE) private readonly deals: DealService) {}

  @MessagePattern(Subjects.portfolios.dealsList)
  list(@Payload() req: RpcRequest<unknown>) {
    return this.deals.list(requireUser(req.meta), req.data);
  }

  @MessagePattern(Subjects.portfolios.dealsCreate)
  create(@Payload() req: RpcRequest<unknown>) {
    return this.deals.create(requireUser(req.meta), req.data, idempotencyKeyOf(req.meta));
  }

  @MessagePattern(Subjects.portfolios.dealsDelete)
  delete(@Payload() req: RpcRequest<unknown>) {
    return this.deals.delete(requireUser(req.meta), req.data);
  }
}
