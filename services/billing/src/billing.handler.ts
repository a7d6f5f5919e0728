import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { entitlementsRequestSchema, type RpcRequest, Subjects } from '@invest/contracts';
import { parseOrThrow, requireUser } from '@invest/platform';
import type { BillingService } from './billing.service.js';
import { countedNotification } from './provider/notification.metrics.js';

/** `billing.*`: plans (public), the user's subscription and payments, provider notifications and entitlements. */
export function createBillingHandler(billing: BillingService) {
  @Controller()
  class BillingHandler {
    @MessagePattern(Subjects.billing.plansList)
    plans() {
      return billing.listPlans();
    }

    @MessagePattern(Subjects.billing.subscriptionGet)
    current(@Payload() req: RpcRequest<unknown>) {
      return billing.current(requireUser(req.meta));
    }

    @MessagePattern(Subjects.billing.paymentsList)
    payments(@Payload() req: RpcRequest<unknown>) {
      return billing.payments(requireUser(req.meta));
    }

    @MessagePattern(Subjects.billing.paymentHistory)
    paymentHistory(@Payload() req: RpcRequest<unknown>) {
      return billing.paymentHistory(requireUser(req.meta), req.data);
    }

    @MessagePattern(Subjects.billing.subscribe)
    subscribe(@Payload() req: RpcRequest<unknown>) {
      return billing.subscribe(requireUser(req.meta), req.data);
    }

    @MessagePattern(Subjects.billing.subscriptionCheckout)
    checkout(@Payload() req: RpcRequest<unknown>) {
      return billing.checkout(requireUser(req.meta), req.data);
    }

    @MessagePattern(Subjects.billing.subscriptionChangePlan)
    changePlan(@Payload() req: RpcRequest<unknown>) {
      return billing.changePlan(requireUser(req.meta), req.data);
    }

    @MessagePattern(Subjects.billing.subscriptionSync)
    sync(@Payload() req: RpcRequest<unknown>) {
      return billing.sync(requireUser(req.meta));
    }

    @MessagePattern(Subjects.billing.subscriptionCancel)
    cancel(@Payload() req: RpcRequest<unknown>) {
      return billing.cancel(requireUser(req.meta));
    }

    @MessagePattern(Subjects.billing.subscriptionResume)
    resume(@Payload() req: RpcRequest<unknown>) {
      return billing.resume(requireUser(req.meta));
    }

    /** Signed by the provider, not by a user: the signature is checked inside, before the body is parsed; each counted by what it came to. */
    @MessagePattern(Subjects.billing.providerPay)
    pay(@Payload() req: RpcRequest<unknown>) {
      return countedNotification('pay', () => billing.pay(req.data));
    }

    @MessagePattern(Subjects.billing.providerRecurrent)
    recurrent(@Payload() req: RpcRequest<unknown>) {
      return countedNotification('recurrent', () => billing.recurrent(req.data));
    }

    @MessagePattern(Subjects.billing.providerFail)
    fail(@Payload() req: RpcRequest<unknown>) {
      return countedNotification('fail', () => billing.fail(req.data));
    }

    @MessagePattern(Subjects.billing.providerReceipt)
    receipt(@Payload() req: RpcRequest<unknown>) {
      return countedNotification('receipt', () => billing.receipt(req.data));
    }

    @MessagePattern(Subjects.billing.providerRefund)
    refund(@Payload() req: RpcRequest<unknown>) {
      return countedNotification('refund', () => billing.refund(req.data));
    }

    /** For other services (alerts, chat), not routed from HTTP. */
    @MessagePattern(Subjects.billing.entitlementsGet)
    entitlements(@Payload() req: RpcRequest<unknown>) {
      return billing.entitlements(parseOrThrow(entitlementsRequestSchema, req.data).userId);
    }
  }
  return BillingHandler;
}
