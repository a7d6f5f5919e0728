import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  type CustomAssetReply,
  CustomAssetSubjects,
  type DeleteCustomAssetReply,
  type ListCustomAssetsReply,
  type RpcRequest,
} from '@invest/contracts';
import { idempotencyKeyOf, requireUser } from '@invest/platform';
import { CUSTOM_ASSETS } from '../screener.tokens.js';
import type { CustomAssetsService } from './custom-assets.service.js';

/** `screener.custom-assets.*`: every request acts for `meta.userId` and sees only that user's assets. */
@Controller()
export class CustomAssetsHandler {
  constructor(@Inject(CUSTOM_ASSETS) private readonly service: CustomAssetsService) {}

  @MessagePattern(CustomAssetSubjects.list)
  list(@Payload() req: RpcRequest<unknown>): Promise<ListCustomAssetsReply> {
    return this.service.list(requireUser(req?.meta));
  }

  @MessagePattern(CustomAssetSubjects.create)
  create(@Payload() req: RpcRequest<unknown>): Promise<CustomAssetReply> {
    return this.service.create(requireUser(req?.meta), req?.data, idempotencyKeyOf(req?.meta));
  }

  @MessagePattern(CustomAssetSubjects.update)
  update(@Payload() req: RpcRequest<unknown>): Promise<CustomAssetReply> {
    return this.service.update(requireUser(req?.meta), req?.data);
  }

  @MessagePattern(CustomAssetSubjects.delete)
  delete(@Payload() req: RpcRequest<unknown>): Promise<DeleteCustomAssetReply> {
    return this.service.delete(requireUser(req?.meta), req?.data);
  }
}
