import { deliverableFiringsReplySchema, Subjects } from '@invest/contracts';
import { type RpcClient, ServiceError } from '@invest/platform';

/**
 * Which firings may still go out, asked of alerts (`alerts.firings.deliverable`), each for its user: not those of a
 * notification deleted or switched off since it fired. One request for the messages of many users.
 */
export class DeliverableFiringsClient {
  constructor(private readonly rpc: RpcClient) {}

  async deliverable(firings: readonly { userId: string; firingId: number }[]): Promise<Set<number>> {
    if (firings.length === 0) return new Set();
    const raw = await this.rpc.request<unknown>(Subjects.alerts.firingsDeliverable, { firings: firings.map((f) => ({ user_id: f.userId, firing_id: f.firingId })) });
    const reply = deliverableFiringsReplySchema.safeParse(raw);
    if (!reply.success) throw ServiceError.unavailable('The alerts service answered alerts.firings.deliverable unexpectedly.');
    return new Set(reply.data.data.firing_ids);
  }
}
