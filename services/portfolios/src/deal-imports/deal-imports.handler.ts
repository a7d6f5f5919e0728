import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { DealImportSubjects, type RpcRequest } from '@invest/contracts';
import { idempotencyKeyOf, requireUser } from '@invest/platform';
import type { DealImportService } from './deal-import.service.js';

/** `portfolios.deal-imports.*` */
export function createDealImportsHandler(imports: DealImportService) {
  @Controller()
  class DealImportsHandler {
    @MessagePattern(DealImportSubjects.preview)
    preview(@Payload() req: RpcRequest<unknown>) {
      return imports.preview(requireUser(req.meta), req.data);
    }

    @MessagePattern(DealImportSubjects.create)
    create(@Payload() req: RpcRequest<unknown>) {
      return imports.import(requireUser(req.meta), req.data, idempotencyKeyOf(req.meta));
    }
  }
  return DealImportsHandler;
}
