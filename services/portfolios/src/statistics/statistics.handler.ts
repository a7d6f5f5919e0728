import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type RpcRequest, Subjects } from '@invest/contracts';
import { STATISTICS_SERVICE } from '../portfolios.tokens.js';
import type { StatisticsService } from './statistics.service.js';
import { requireUser } from '@invest/platform';

/** `portfolios.statistics.get`: used by the gateway and by the chat service (portfolio_health context). */
@Controller()
export class StatisticsHandler {
  constructor(@Inject(STATISTICS_SERVICE) private readonly statistics: StatisticsService) {}

  @MessagePattern(Subjects.portfolios.statisticsGet)
  get(@Payload() req: RpcRequest<unknown>) {
    return this.statistics.get(requireUser(req.meta), req.data);
  }
}
