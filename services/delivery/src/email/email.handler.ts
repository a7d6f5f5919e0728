import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { DeliverySubjects, type RpcRequest } from '@invest/contracts';
import type { EmailLinksService } from './email-links.service.js';

/** `delivery.email.*`: the links in mails; the token is the authority, there is no signed-in user. */
export function createEmailHandler(links: EmailLinksService) {
  @Controller()
  class EmailHandler {
    @MessagePattern(DeliverySubjects.emailConfirm)
    confirm(@Payload() req: RpcRequest<unknown>) {
      return links.confirm(req.data);
    }

    @MessagePattern(DeliverySubjects.emailUnsubscribe)
    unsubscribe(@Payload() req: RpcRequest<unknown>) {
      return links.unsubscribe(req.data);
    }

    @MessagePattern(DeliverySubjects.emailUnsubscribeView)
    unsubscribeView(@Payload() req: RpcRequest<unknown>) {
      return links.unsubscribeView(req.data);
    }
  }
  return EmailHandler;
}
