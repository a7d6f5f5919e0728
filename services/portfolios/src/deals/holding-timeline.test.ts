import type { DealType } from '@invest/contracts';
import { Decimal } from '@invest/platform/decimal/decimal';
import { describe, expect, it } from 'vitest';
import { finalHolding, findOversell, type HoldingDeal, positionTransition, runningHoldings } from './holding-timeline.js';

/** Deals with quantities written as decimal text (or numbers), as they are stored. */
const h = (deals: { id: number; type: DealType; quantity: string | number; date: string }[]): HoldingDeal[] =>
  deals.map((d) => ({ ...d, quantity: Decimal.of(d.quantity) }));
const texts = (o: { held: Decimal; sold: Decimal; dealId: number; date: string } | null) => o && { ...o, held: o.held.toString(), sold: o.sold.toString() };

describe('holding timeline', () => {
  it('accepts a history that never sells more than is held', () => {
    expect(
      findOversell(
        h([
          { id: 1, type: 'buy', quantity: 10, date: '2024-01-01' },
          { id: 2, type: 'sell', quantity: 4, date: '2024-02-01' },
          { id: 3, type: 'sell', quantity: 6, date: '2024-03-01' },
        ]),
      ),
    ).toBeNull();
  });

  it('finds a sell beyond the holding at its date, even if a later buy would cover it', () => {
    expect(
      texts(
        findOversell(
          h([
            { id: 1, type: 'buy', quantity: 10, date: '2024-01-01' },
            { id: 2, type: 'sell', quantity: 12, date: '2024-02-01' },
            { id: 3, type: 'buy', quantity: 10, date: '2024-03-01' },
          ]),
        ),
      ),
    ).toEqual({ dealId: 2, date: '2024-02-01', held: '10', sold: '12' });
  });

  it('detects that removing a buy makes a later sell oversold', () => {
    const remaining = h([
      { id: 1, type: 'buy', quantity: 5, date: '2024-01-01' },
      { id: 3, type: 'sell', quantity: 8, date: '2024-04-01' },
    ]);
    expect(findOversell(remaining)?.dealId).toBe(3);
  });

  it('ignores dividends, fees and taxes for the holding; sums exactly (0.1 + 0.2 - 0.3 is 0)', () => {
    const deals = h([
      { id: 1, type: 'buy', quantity: 0.1, date: '2024-01-01' },
      { id: 2, type: 'buy', quantity: 0.2, date: '2024-01-01' },
      { id: 3, type: 'dividend', quantity: 0.3, date: '2024-01-02' },
      { id: 4, type: 'sell', quantity: 0.3, date: '2024-01-03' },
    ]);
    expect(findOversell(deals)).toBeNull();
    expect(finalHolding(deals).isZero()).toBe(true);
  });

  it('never lets a sell exceed the holding by a tiny amount, and counts a tiny holding as held', () => {
    expect(texts(findOversell(h([{ id: 1, type: 'sell', quantity: '0.00000001', date: '2024-01-01' }])))).toEqual({
      dealId: 1,
      date: '2024-01-01',
      held: '0',
      sold: '0.00000001',
    });
    expect(
      findOversell(
        h([
          { id: 1, type: 'buy', quantity: 1, date: '2024-01-01' },
          { id: 2, type: 'sell', quantity: '1.00000001', date: '2024-01-02' },
        ]),
      )?.dealId,
    ).toBe(2);
    // 1 - 0.99999999 = 0.00000001 is still held (the database's exact sum says so too).
    const left = h([
      { id: 1, type: 'buy', quantity: 1, date: '2024-01-01' },
      { id: 2, type: 'sell', quantity: '0.99999999', date: '2024-01-02' },
    ]);
    expect(finalHolding(left).toString()).toBe('0.00000001');
  });

  it('names position transitions', () => {
    const [zero, three, five] = [Decimal.ZERO, Decimal.of(3), Decimal.of(5)];
    expect(positionTransition(zero, five)).toBe('opened');
    expect(positionTransition(five, zero)).toBe('closed');
    expect(positionTransition(five, three)).toBeNull();
    expect(positionTransition(zero, zero)).toBeNull();
  });

  it('gives the exact holding after each deal, a sell beyond it emptying it', () => {
    const held = runningHoldings(
      h([
        { id: 1, type: 'buy', quantity: 1, date: '2024-01-01' },
        { id: 2, type: 'dividend', quantity: 1, date: '2024-01-02' },
        { id: 3, type: 'sell', quantity: '0.99999999', date: '2024-01-03' },
        { id: 4, type: 'sell', quantity: '0.00000001', date: '2024-01-04' },
        { id: 5, type: 'sell', quantity: 5, date: '2024-01-05' },
      ]),
    );
    expect(held.map(String)).toEqual(['1', '1', '0.00000001', '0', '0']);
  });
});
