/**
 * "Concurrent sells against one holding never oversell" (the portfolio row lock in
 * services/portfolios/src/deals/deal.service.ts): many sells sent at once through HTTP, each valid
 * alone, together more than is held. Exactly the ones that fit succeed; the rest are 422 on `quantity`,
 * and the holding never goes below zero.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintDevToken } from '@invest/gateway/testing/gateway-test-kit';
import { type FullStack, startFullStack } from '../support/full-stack.js';

const SECRET = 'concurrent-sells-e2e-secret-0123456789-0123';
let stack: FullStack;
let token: string;

beforeAll(async () => {
  stack = await startFullStack({
    name: 'gwsell',
    tickers: ['SBER'],
    gateway: { auth: { jwtSecret: SECRET }, readyServices: [] },
  });
  token = await mintDevToken(`seller-${randomUUID()}`, SECRET);
});
afterAll(() => stack?.close());

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(new URL(path, stack.base), {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const deal = (type: 'buy' | 'sell', quantity: number, date: string) => ({
  type,
  assetable: { type: 'share', id: stack.shareIds.SBER },
  quantity,
  price: 300,
  commission: 0,
  date,
});

async function holding(portfolioId: number): Promise<number> {
  const deals = (await api('GET', `/api/portfolios/${portfolioId}/deals?per_page=100`)).body.data as { type: string; quantity: number | string }[];
  return deals.reduce((sum, d) => sum + (d.type === 'buy' ? 1 : -1) * Number(d.quantity), 0);
}

describe('concurrent sells of one holding', () => {
  it('let exactly the sells that fit through, answer 422 to the rest, and never go below zero', async () => {
    const created = await api('POST', '/api/portfolios', { name: 'Race', currency_code: 'RUB' });
    expect(created.status).toBe(201);
    const pid = (created.body.data as { id: number }).id;
    expect((await api('POST', `/api/portfolios/${pid}/deals`, deal('buy', 10, '2025-03-03'))).status).toBe(201);

    // Each sell of 3 fits the holding of 10 alone; together 16 × 3 = 48. Three fit.
    for (const [round, { sells, quantity, fit, date }] of [
      { sells: 16, quantity: 3, fit: 3, date: '2025-03-04' },
      // A second round on what is left (1) plus a buy of 9: 10 again, sells of 4 → two fit.
      { sells: 12, quantity: 4, fit: 2, date: '2025-03-06' },
    ].entries()) {
      if (round === 1) expect((await api('POST', `/api/portfolios/${pid}/deals`, deal('buy', 9, '2025-03-05'))).status).toBe(201);
      const before = await holding(pid);
      expect(before).toBe(10);
      const answers = await Promise.all(Array.from({ length: sells }, () => api('POST', `/api/portfolios/${pid}/deals`, deal('sell', quantity, date))));
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s === 201), statuses.join(',')).toHaveLength(fit);
      expect(statuses.filter((s) => s === 422), statuses.join(',')).toHaveLength(sells - fit);
      for (const refused of answers.filter((a) => a.status === 422)) {
        expect(Object.keys(refused.body.errors as object)).toEqual(['quantity']);
      }
      expect(await holding(pid)).toBe(before - fit * quantity);
    }
    expect(await holding(pid)).toBeGreaterThanOrEqual(0);
  });
});
