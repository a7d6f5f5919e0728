import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  type CustomAssetReply,
  CustomAssetSubjects,
  type DeleteCustomAssetReply,
  type ListCustomAssetsReply,
  type RpcRequest,
} from '@invest/contracts';
import { idempotencyKeyOf, requireUser } from '@invest/platform';
import type { CustomAssetsService } from './custom-assets.service.js';

/** `screener.custom-assets.*`: every request acts for `meta.userId` and sees only that user's assets. */
export function createCustomAssetsHandler(service: CustomAssetsService) {
  @Controller()
  class CustomAssetsHandler {
    @MessagePattern(CustomAssetSubjects.list)
    list(@Payload() req: RpcRequest<unknown>): Promise<ListCustomAssetsReply> {
      return service.list(requireUser(req?.meta));
    }

    @MessagePattern(CustomAssetSubjects.create)
    create(@Payload() req: RpcRequest<unknown>): Promise<CustomAssetReply> {
      return service.create(requireUser(req?.meta), req?.data, idempotencyKeyOf(req?.meta));
    }

    @MessagePattern(CustomAssetSubjects.update)
    update(@Payload() req: RpcRequest<unknown>): Promise<CustomAssetReply> {
      return service.update(requireUser(req?.meta), req?.data);
    }

    @MessagePattern(CustomAssetSubjects.delete)
    delete(@Payload() req: RpcRequest<unknown>): Promise<DeleteCustomAssetReply> {
      return service.delete(requireUser(req?.meta), req?.data);
    }
  }
  return CustomAssetsHandler;
}
