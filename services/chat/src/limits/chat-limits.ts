import { type Entitlements, ErrorCode, Subjects } from '@invest/contracts';
import { type Logger, type RpcClient, ServiceError, type SqlClient } from '@invest/platform';
import type { ContextProvider } from '../providers/context-provider.js';
import { dayPeriod } from './limit-period.js';
import { budgetFor, type TokenBudgets, type TokenBudgetState, tokenBudgetState } from './token-budget.js';

/**
 * The answers that count against a period are kept in `chat_usage`: every answer the model was asked for
 * (reserved when the messages are stored, so concurrent sends cannot overshoot), complete, stopped (even before
 * its first chunk) or failed after the model sent something. Only an answer that failed before the model sent
 * anything gives its reservation back: a stop is the user's choice, and the model call was made.
 */

export interface LimitState {
  limit: number | null;
  used: number;
  remaining: number | null;
  resetsAt: Date;
  periodStart: Date;
}

interface CacheEntry {
  /** `Date.now()` when asked (the TTL is real time). */
  at: number;
  value: Promise<Entitlements>;
  /** When the answered paid access ends, by the service's clock (epoch ms); unset: no end, or not answered yet. */
  endsAt?: number;
}

/** Free limits per user, context and `MARKET_TZ` day; the numbers come from billing's entitlements. */
export class ChatLimits {
  /** Entitlements per user, kept for `entitlementsTtlMs` (billing's README: callers cache briefly). */
  private readonly cache = new Map<string, CacheEntry>();

  constructor(
    private readonly rpc: RpcClient,
    private readonly opts: { marketTz: string; clock: () => Date; logger: Logger; entitlementsTtlMs?: number; tokenBudgets: TokenBudgets },
  ) {}

  private entitlements(userId: string): Promise<Entitlements> {
    const ttl = this.opts.entitlementsTtlMs ?? 5000;
    const now = Date.now();
    const hit = this.cache.get(userId);
    if (hit && now - hit.at < ttl && !(hit.endsAt !== undefined && hit.endsAt <= this.opts.clock().getTime())) return hit.value;
    if (this.cache.size > 10_000) this.cache.clear();
    const value = this.rpc.request<Entitlements>(Subjects.billing.entitlementsGet, { userId }, { userId, timeoutMs: 3000 });
    const entry: CacheEntry = { at: now, value };
    this.cache.set(userId, entry);
    // Paid access ends at its `endsAt` with no billing event: the plan in force is asked again from then on, so a
    // message after it gets the limit of the plan in force then, not the best plan of the cache's lifetime.
    value.then(
      (e) => {
        if (e.endsAt !== null) entry.endsAt = Date.parse(e.endsAt);
      },
      () => undefined,
    );
    // A failure is remembered for a second (a prefetch and the read after it share one answer), then retried.
    value.catch(() => {
      const entry = this.cache.get(userId);
      if (entry?.value === value) entry.at = Date.now() - ttl + 1000;
    });
    return value;
  }

  /** Drops the user's cached entitlements (their billing changed). */
  forget(userId: string): void {
    this.cache.delete(userId);
  }

  /** Starts reading the user's entitlements (cached), so `limitFor` later finds them in flight or done. */
  prefetch(userId: string): void {
    this.entitlements(userId).catch(() => undefined);
  }

  /** Answers a period allowed for the user in this context (null: unlimited). */
  async limitFor(userId: string, provider: ContextProvider): Promise<number | null> {
    try {
      const e = await this.entitlements(userId);
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

  /** The user's daily token budget: by the plan in force, as the message limit (the free one while billing does not answer). */
  async tokenBudgetFor(userId: string): Promise<number | null> {
    try {
      return budgetFor(this.opts.tokenBudgets, (await this.entitlements(userId)).paid);
    } catch (err) {
      if (err instanceof ServiceError && err.code !== ErrorCode.Internal) return this.opts.tokenBudgets.free;
      throw err;
    }
  }

  /** Tokens the user's answers of the current period cost (every context). */
  async tokenState(db: SqlClient, userId: string, limit: number | null): Promise<TokenBudgetState> {
    const { start, resetsAt } = this.period();
    const [row] = await db.query<{ used: number }>('select coalesce(sum(total_tokens), 0)::int as used from chat_token_usage where user_id = $1 and period_start = $2', [
      userId,
      start.toISOString(),
    ]);
    return tokenBudgetState(limit, row?.used ?? 0, resetsAt);
  }

  /** The current period (the `MARKET_TZ` day by the injected clock). */
  period(): { start: Date; resetsAt: Date } {
    return dayPeriod(this.opts.clock(), this.opts.marketTz);
  }

  get marketTz(): string {
    return this.opts.marketTz;
  }

  async state(db: SqlClient, userId: string, provider: ContextProvider, limit: number | null): Promise<LimitState> {
    const { start, resetsAt } = this.period();
    const [row] = await db.query<{ used: number }>('select used from chat_usage where user_id = $1 and context_type = $2 and period_start = $3', [
      userId,
      provider.type,
      start.toISOString(),
    ]);
    const used = row?.used ?? 0;
    return { limit, used, remaining: limit === null ? null : Math.max(0, limit - used), resetsAt, periodStart: start };
  }

  /** 429 with `limit` and `resets_at` when the period's answers are used up. Run under the owner's lock. */
  static requireRemaining(state: Pick<LimitState, 'limit' | 'used' | 'resetsAt'>, provider: ContextProvider): void {
    if (state.limit !== null && state.used >= state.limit) {
      throw new ServiceError(
        ErrorCode.RateLimited,
        `You have used all ${state.limit} ${provider.type} messages for today. The limit resets at ${state.resetsAt.toISOString()}.`,
        undefined,
        { code: 'message_limit', limit: state.limit, resets_at: state.resetsAt.toISOString() },
      );
    }
  }
}
