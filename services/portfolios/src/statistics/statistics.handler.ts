import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type RpcRequest, Subjects } from '@invest/contracts';
import type { StatisticsService } from './statistics.service.js';
import { requireUser } from '@invest/platform';

/** `portfolios.statistics.get`: used by the gateway and by the chat service (portfolio_health context). */
export function createStatisticsHandler(statistics: StatisticsService) {
  @Controller()
  class StatisticsHandler {
    @MessagePattern(Subjects.portfolios.statisticsGet)
    get(@Payload() req: RpcRequest<unknown>) {
      return statistics.get(requireUser(req.meta), req.data);
    }
  }
  return StatisticsHandler;
}
