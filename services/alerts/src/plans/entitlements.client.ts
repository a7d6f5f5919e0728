import { type Entitlements, entitlementsSchema, ErrorCode, Subjects } from '@invest/contracts';
import type { Logger } from '@invest/platform/logging/logger';
import type { Bus } from '@invest/platform/messaging/bus';
import { busSubject } from '@invest/platform/messaging/bus-prefix';
import type { RpcClient } from '@invest/platform/rpc/rpc-client';
import { ServiceError } from '@invest/platform/rpc/service-error';

/** What billing answered about a user's plan, and when it was asked (orders answers: `paid-access.repository.ts`). */
export interface EntitlementsAnswer {
  entitlements: Entitlements;
  askedAt: Date;
}

/**
 * The user's plan limits from billing (`billing.entitlements.get`), reused for `ttlMs`. A billing event of
 * the user (BILLING_EVENTS, read with a plain subscription: losing one only delays the refresh to the TTL)
 * drops the copy at once, so a new subscription lifts the gate without waiting.
 */
export class EntitlementsClient {
  private readonly cache = new Map<string, EntitlementsAnswer & { until: number }>();
  private sub: { unsubscribe(): void } | undefined;

  constructor(
    private readonly rpc: RpcClient,
    private readonly ttlMs: number,
    private readonly logger: Logger,
  ) {}

  async get(userId: string): Promise<Entitlements> {
    return (await this.answer(userId)).entitlements;
  }

  /** The kept answer while it lasts, else a new one. */
  async answer(userId: string): Promise<EntitlementsAnswer> {
    const hit = this.cache.get(userId);
    if (hit && hit.until > Date.now()) return hit;
    return this.ask(userId);
  }

  /** Asks billing now, past the kept copy (which the answer replaces). */
  async ask(userId: string): Promise<EntitlementsAnswer> {
    // The wall clock, not the service's (tests move that): it orders billing's answers, which billing dates by its own.
    const askedAt = new Date();
    const raw = await this.rpc.request<unknown>(Subjects.billing.entitlementsGet, { userId });
    const parsed = entitlementsSchema.safeParse(raw);
    if (!parsed.success) {
      this.logger.error({ issues: parsed.error.issues.slice(0, 5) }, 'billing.entitlements.get answered in an unexpected shape');
      throw ServiceError.unavailable('The billing service answered unexpectedly.');
    }
    const answer = { entitlements: parsed.data, askedAt };
    this.cache.set(userId, { ...answer, until: askedAt.getTime() + this.ttlMs });
    return answer;
  }

  invalidate(userId: string): void {
    this.cache.delete(userId);
  }

  /** Drops a user's copy on each of their billing events. */
  followBillingEvents(bus: Bus): void {
    const sub = bus.nc.subscribe(busSubject(bus.prefix, 'billing.events.>'), {
      callback: (err, msg) => {
        if (err) return;
        try {
          const userId = (msg.json() as { data?: { userId?: unknown } }).data?.userId;
          if (typeof userId === 'string') this.invalidate(userId);
        } catch {
          /* not an event envelope: nothing to drop */
        }
      },
    });
    this.sub = sub;
  }

  stop(): void {
    this.sub?.unsubscribe();
  }
}

/** The 403 of the plan gate: `code: plan_required` and the limit in the body. */
export function planRequired(message: string, limit: Record<string, unknown>): ServiceError {
  return new ServiceError(ErrorCode.PlanRequired, message, undefined, { limit });
}
