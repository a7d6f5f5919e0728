import { ErrorCode } from '@invest/contracts';
import { ServiceError } from '@invest/platform/rpc/service-error';
import { describe, expect, it } from 'vitest';
import { budgetFor, requireTokenBudget, tokenBudgetState } from './token-budget.js';

const resetsAt = new Date('2026-03-10T21:00:00Z');

describe('token budget', () => {
  it('takes the budget of the plan: paid access or free', () => {
    expect(budgetFor({ free: 1000, paid: 50_000 }, false)).toBe(1000);
    expect(budgetFor({ free: 1000, paid: null }, true)).toBeNull();
  });

  it('counts what is left, never below zero; unlimited has no remainder', () => {
    expect(tokenBudgetState(1000, 400, resetsAt)).toEqual({ limit: 1000, used: 400, remaining: 600, resetsAt });
    expect(tokenBudgetState(1000, 1250, resetsAt).remaining).toBe(0);
    expect(tokenBudgetState(null, 1250, resetsAt).remaining).toBeNull();
  });

  it('lets a send through below the budget, unlimited always', () => {
    expect(() => requireTokenBudget(tokenBudgetState(1000, 999, resetsAt))).not.toThrow();
    expect(() => requireTokenBudget(tokenBudgetState(null, 10 ** 9, resetsAt))).not.toThrow();
  });

  it('refuses one at the budget or over it with a 429 naming the budget and its reset', () => {
    for (const used of [1000, 1001]) {
      let caught: unknown;
      try {
        requireTokenBudget(tokenBudgetState(1000, used, resetsAt));
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(ServiceError);
      const e = caught as ServiceError;
      expect(e.code).toBe(ErrorCode.RateLimited);
      expect(e.message).toBe('Your daily token budget of 1000 tokens is used up. It resets at 2026-03-10T21:00:00.000Z.');
      expect(e.extra).toEqual({ code: 'token_budget', limit: 1000, resets_at: '2026-03-10T21:00:00.000Z' });
    }
  });
});
