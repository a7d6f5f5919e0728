import { ErrorCode } from '@invest/contracts';
import { ServiceError } from '@invest/platform/rpc/service-error';

/**
 * The per-user daily token budget, beside the message limits: the tokens of every answer of the user's `MARKET_TZ`
 * day (all contexts), as the model reported them (estimated when it did not). A send is refused once the day's
 * tokens reach the budget; the answer that crosses it is not cut (its cost is known only when it ends), so a day
 * can end a little over the budget, by at most the answers that were already running.
 */

/** Budgets by plan: free users, and users with paid (or complimentary) access. `null` is unlimited. */
export interface TokenBudgets {
  free: number | null;
  paid: number | null;
}

export interface TokenBudgetState {
  limit: number | null;
  used: number;
  remaining: number | null;
  resetsAt: Date;
}

/** Without configuration (`CHAT_DAILY_TOKENS_FREE`, `CHAT_DAILY_TOKENS_PAID`). */
export const DEFAULT_TOKEN_BUDGETS: TokenBudgets = { free: 100_000, paid: 2_000_000 };

/** The budget of a user's plan. */
export function budgetFor(budgets: TokenBudgets, paid: boolean): number | null {
  return paid ? budgets.paid : budgets.free;
}

export function tokenBudgetState(limit: number | null, used: number, resetsAt: Date): TokenBudgetState {
  return { limit, used, remaining: limit === null ? null : Math.max(0, limit - used), resetsAt };
}

/** 429 naming the budget (`code: token_budget`, `limit`, `resets_at`) once the day's tokens reached it. */
export function requireTokenBudget(state: TokenBudgetState): void {
  if (state.limit !== null && state.used >= state.limit) {
    throw new ServiceError(ErrorCode.RateLimited, `Your daily token budget of ${state.limit} tokens is used up. It resets at ${state.resetsAt.toISOString()}.`, undefined, {
      code: 'token_budget',
      limit: state.limit,
      resets_at: state.resetsAt.toISOString(),
    });
  }
}
