import { type Entitlements, ErrorCode, Subjects } from '@invest/contracts';
import { type Logger, type RpcClient, ServiceError, type SqlClient } from '@invest/platform';
import type { ContextProvider } from '../providers/context-provider.js';
import { dayPeriod } from './limit-period.js';

/**
 * The answers that count against a period: complete ones, stopped ones that have content, and ones still
 * streaming (so concurrent sends cannot overshoot; a stream that then fails stops counting). Failed calls
 * never count.
 */
const COUNTED = `role = 'assistant' and (status in ('complete', 'streaming') or (status = 'stopped' and content <> ''))`;

export interface LimitState {
  limit: number | null;
  used: number;
  remaining: number | null;
  resetsAt: Date;
  periodStart: Date;
}

/** Free limits per user, context and `MARKET_TZ` day; the numbers come from billing's entitlements. */
export class ChatLimits {
  constructor(
    private readonly rpc: RpcClient,
    private readonly opts: { marketTz: string; clock: () => Date; logger: Logger },
  ) {}

  /** Answers a period allowed for the user in this context (null: unlimited). */
  async limitFor(userId: string, provider: ContextProvider): Promise<number | null> {
    try {
      const e = await this.rpc.request<Entitlements>(Subjects.billing.entitlementsGet, { userId }, { userId, timeoutMs: 3000 });
      const v = e.limits.chatMessagesPerDay[provider.type];
      return v === undefined ? provider.freeLimit : v;
    } catch (err) {
      // Billing down must not stop the chat: the free limit applies until it answers again.
      if (err instanceof ServiceError && err.code !== ErrorCode.Internal) {
        this.opts.logger.warn({ err, userId }, 'chat: billing entitlements unavailable; applying the free limit');
        return provider.freeLimit;
      }
      throw err;
    }
  }

  async state(db: SqlClient, userId: string, provider: ContextProvider, limit: number | null): Promise<LimitState> {
    const { start, resetsAt } = dayPeriod(this.opts.clock(), this.opts.marketTz);
    const [row] = await db.query<{ n: number }>(
      `select count(*)::int as n from chat_messages where user_id = $1 and context_type = $2 and created_at >= $3 and ${COUNTED}`,
      [userId, provider.type, start.toISOString()],
    );
    const used = row?.n ?? 0;
    return { limit, used, remaining: limit === null ? null : Math.max(0, limit - used), resetsAt, periodStart: start };
  }

  /** 429 with `limit` and `resets_at` when the period's answers are used up. Run under the owner's lock. */
  static requireRemaining(state: LimitState, provider: ContextProvider): void {
    if (state.limit !== null && state.used >= state.limit) {
      throw new ServiceError(
        ErrorCode.RateLimited,
        `You have used all ${state.limit} ${provider.type} messages for today. The limit resets at ${state.resetsAt.toISOString()}.`,
        undefined,
        { limit: state.limit, resets_at: state.resetsAt.toISOString() },
      );
    }
  }
}
