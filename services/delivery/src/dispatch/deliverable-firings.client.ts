import { deliverableFiringsReplySchema, Subjects } from '@invest/contracts';
import { type RpcClient, ServiceError } from '@invest/platform';

/**
 * Which firings may still go out, asked of alerts (`alerts.firings.deliverable`) for their user: not those of a
 * notification deleted or switched off since it fired.
 */
export class DeliverableFiringsClient {
  constructor(private readonly rpc: RpcClient) {}

  async deliverable(userId: string, firingIds: readonly number[]): Promise<Set<number>> {
    if (firingIds.length === 0) return new Set();
    const raw = await this.rpc.request<unknown>(Subjects.alerts.firingsDeliverable, { firing_ids: firingIds }, { userId });
    const reply = deliverableFiringsReplySchema.safeParse(raw);
    if (!reply.success) throw ServiceError.unavailable('The alerts service answered alerts.firings.deliverable unexpectedly.');
    return new Set(reply.data.data.firing_ids);
  }
}
