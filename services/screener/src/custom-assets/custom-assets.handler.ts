import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  type CustomAssetReply,
  CustomAssetSubjects,
  type DeleteCustomAssetReply,
  ErrorCode,
  idempotencyKeySchema,
  type ListCustomAssetsReply,
  type RequestMeta,
  type RpcRequest,
} from '@invest/contracts';
import { IDEMPOTENCY_KEY_FIELD, ServiceError } from '@invest/platform';
import { CUSTOM_ASSETS } from '../screener.tokens.js';
import type { CustomAssetsService } from './custom-assets.service.js';

function requireUser(meta: Partial<RequestMeta> | undefined): string {
  if (!meta?.userId) throw new ServiceError(ErrorCode.Unauthenticated, 'Unauthenticated.');
  return meta.userId;
}

/** The request's `Idempotency-Key` (checked again here: a bad one is a 422 naming the header), or undefined. */
function idempotencyKeyOf(meta: Partial<RequestMeta> | undefined): string | undefined {
  const key: unknown = meta?.idempotencyKey;
  if (key === undefined) return undefined;
  const parsed = idempotencyKeySchema.safeParse(key);
  if (!parsed.success) throw ServiceError.validation({ [IDEMPOTENCY_KEY_FIELD]: parsed.error.issues.map((i) => i.message) });
  return parsed.data;
}

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
