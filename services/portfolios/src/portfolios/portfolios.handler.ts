import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type RpcRequest, Subjects } from '@invest/contracts';
import type { PortfolioService } from './portfolio.service.js';
import { idempotencyKeyOf, requireUser } from '@invest/platform';

/** `portfolios.portfolios.*`: every request acts for `meta.userId`. */
export function createPortfoliosHandler(portfolios: PortfolioService) {
  @Controller()
  class PortfoliosHandler {
    @MessagePattern(Subjects.portfolios.portfoliosList)
    list(@Payload() req: RpcRequest<unknown>) {
      return portfolios.list(requireUser(req.meta));
    }

    @MessagePattern(Subjects.portfolios.portfoliosCreate)
    create(@Payload() req: RpcRequest<unknown>) {
      return portfolios.create(requireUser(req.meta), req.data, idempotencyKeyOf(req.meta));
    }

    @MessagePattern(Subjects.portfolios.portfoliosGet)
    get(@Payload() req: RpcRequest<unknown>) {
      return portfolios.get(requireUser(req.meta), req.data);
    }

    @MessagePattern(Subjects.portfolios.portfoliosUpdate)
    update(@Payload() req: RpcRequest<unknown>) {
      return portfolios.update(requireUser(req.meta), req.data);
    }

    @MessagePattern(Subjects.portfolios.portfoliosDelete)
    delete(@Payload() req: RpcRequest<unknown>) {
      return portfolios.delete(requireUser(req.meta), req.data);
    }
  }
  return PortfoliosHandler;
}
