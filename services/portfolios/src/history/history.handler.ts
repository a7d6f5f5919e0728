import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type RpcRequest, Subjects } from '@invest/contracts';
import { requireUser } from '@invest/platform';
import type { HistoryService } from './history.service.js';

/** `portfolios.history.get`: one of the user's portfolios day by day (the gateway's history route). */
export function createHistoryHandler(history: HistoryService) {
  @Controller()
  class HistoryHandler {
    @MessagePattern(Subjects.portfolios.historyGet)
    get(@Payload() req: RpcRequest<unknown>) {
      return history.get(requireUser(req.meta), req.data);
    }
  }
  return HistoryHandler;
}
