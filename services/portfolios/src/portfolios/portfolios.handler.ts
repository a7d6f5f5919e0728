import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type RpcRequest, Subjects } from '@invest/contracts';
import { PORTFOLIO_SERVICE } from '../portfolios.tokens.js';
import type { PortfolioService } from './portfolio.service.js';
import { idempotencyKeyOf, requireUser } from '@invest/platform';

/** `portfolios.portfolios.*`: every request acts for `meta.userId`. */
@Controller()
export class PortfoliosHandler {
  constructor(@Inject(PORTFOLIO_SERVICE) private readonly portfolios: PortfolioService) {}

  @MessagePattern(Subjects.portfolios.portfoliosList)
  list(@Payload() req: RpcRequest<unknown>) {
    return this.portfolios.list(requireUser(req.meta));
  }

  @MessagePattern(Subjects.portfolios.portfoliosCreate)
  create(@Payload() req: RpcRequest<unknown>) {
    return this.portfolios.create(requireUser(req.meta), req.data, idempotencyKeyOf(req.meta));
  }

  @MessagePattern(Subjects.portfolios.portfoliosGet)
  get(@Payload() req: RpcRequest<unknown>) {
    return this.portfolios.get(requireUser(req.meta), req.data);
  }

  @MessagePattern(Subjects.portfolios.portfoliosUpdate)
  update(@Payload() req: RpcRequest<unknown>) {
    return this.portfolios.update(requireUser(req.meta), req.data);
  }

  @MessagePattern(Subjects.portfolios.portfoliosDelete)
  delete(@Payload() req: RpcRequest<unknown>) {
    return this.portfolios.delete(requireUser(req.meta), req.data);
  }
}
