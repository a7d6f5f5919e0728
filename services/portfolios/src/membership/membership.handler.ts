import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type RpcRequest, Subjects } from '@invest/contracts';
import type { MembershipService } from './membership.service.js';
import { requireUser } from '@invest/platform';

/** `portfolios.membership.get` */
export function createMembershipHandler(membership: MembershipService) {
  @Controller()
  class MembershipHandler {
    @MessagePattern(Subjects.portfolios.membershipGet)
    get(@Payload() req: RpcRequest<unknown>) {
      return membership.get(requireUser(req.meta), req.data);
    }
  }
  return MembershipHandler;
}
