import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { DeliverySubjects, type RpcRequest } from '@invest/contracts';
import { requireUser } from '@invest/platform';
import type { PushService } from './push.service.js';

/** `delivery.push.*`: the VAPID public key, and the signed-in user's browser subscriptions. */
export function createPushHandler(push: PushService) {
  @Controller()
  class PushHandler {
    @MessagePattern(DeliverySubjects.pushKey)
    key(@Payload() req: RpcRequest<unknown>) {
      requireUser(req.meta);
      return push.key();
    }

    @MessagePattern(DeliverySubjects.pushSubscribe)
    subscribe(@Payload() req: RpcRequest<unknown>) {
      return push.subscribe(requireUser(req.meta), req.data);
    }

    @MessagePattern(DeliverySubjects.pushUnsubscribe)
    unsubscribe(@Payload() req: RpcRequest<unknown>) {
      return push.unsubscribe(requireUser(req.meta), req.data);
    }
  }
  return PushHandler;
}
