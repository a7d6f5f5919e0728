import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type RpcRequest, Subjects } from '@invest/contracts';
import { MEMBERSHIP_SERVICE } from '../portfolios.tokens.js';
import type { MembershipService } from './membership.service.js';
import { requireUser } from '@invest/platform';

/** `portfolios.membership.get` */
@Controller()
export class MembershipHandler {
  constructor(@Inject(MEMBERSHIP_SERVICE) private readonly membership: MembershipService) {}

  @MessagePattern(Subjects.portfolios.membershipGet)
  get(@Payload() req: RpcRequest<unknown>) {
    return this.membership.get(requireUser(req.meta), req.data);
  }
}
