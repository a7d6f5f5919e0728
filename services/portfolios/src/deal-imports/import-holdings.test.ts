import type { DealType } from '@invest/contracts';
import { Decimal } from '@invest/platform/decimal/decimal';
import { describe, expect, it } from 'vitest';
import type { HoldingDeal } from '../deals/holding-timeline.js';
import { refuseOversells } from './import-holdings.js';

const h = (id: number, type: DealType, quantity: number, date: string): HoldingDeal => ({ id, type, quantity: Decimal.of(quantity), date });
const NEW = 1_000_000;

describe('refuseOversells', () => {
  it('accepts new deals that never sell more than is held, buys of the same day counted first', () => {
    expect(refuseOversells([h(1, 'buy', 10, '2024-01-01')], [h(NEW + 1, 'sell', 15, '2024-02-01'), h(NEW, 'buy', 5, '2024-02-01')]).size).toBe(0);
  });

  it('refuses a new sell beyond the holding and keeps the later ones that fit', () => {
    const refused = refuseOversells([h(1, 'buy', 10, '2024-01-01')], [h(NEW, 'sell', 12, '2024-02-01'), h(NEW + 1, 'sell', 10, '2024-03-01')]);
    expect([...refused.keys()]).toEqual([NEW]);
    expect(refused.get(NEW)).toMatchObject({ own: true, date: '2024-02-01' });
    expect(refused.get(NEW)!.held.toString()).toBe('10');
  });

  it('refuses the new backdated sells that would leave a stored sell oversold, latest first', () => {
    const history = [h(1, 'buy', 10, '2024-01-01'), h(2, 'sell', 6, '2024-05-01')];
    const refused = refuseOversells(history, [h(NEW, 'sell', 2, '2024-02-01'), h(NEW + 1, 'sell', 3, '2024-03-01')]);
    // 10 - 2 - 3 = 5 < 6: taking back the 3 (the latest) is enough.
    expect([...refused.keys()]).toEqual([NEW + 1]);
    expect(refused.get(NEW + 1)).toMatchObject({ own: false, dealId: 2, date: '2024-05-01' });
  });
});
