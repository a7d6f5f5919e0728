import { describe, expect, it } from 'vitest';
import { finalHolding, findOversell, positionTransition, runningHoldings } from './holding-timeline.js';

describe('holding timeline', () => {
  it('accepts a history that never sells more than is held', () => {
    expect(
      findOversell([
        { id: 1, type: 'buy', quantity: 10, date: '2024-01-01' },
        { id: 2, type: 'sell', quantity: 4, date: '2024-02-01' },
        { id: 3, type: 'sell', quantity: 6, date: '2024-03-01' },
      ]),
    ).toBeNull();
  });

  it('finds a sell beyond the holding at its date, even if a later buy would cover it', () => {
    expect(
      findOversell([
        { id: 1, type: 'buy', quantity: 10, date: '2024-01-01' },
        { id: 2, type: 'sell', quantity: 12, date: '2024-02-01' },
        { id: 3, type: 'buy', quantity: 10, date: '2024-03-01' },
      ]),
    ).toEqual({ dealId: 2, date: '2024-02-01', held: 10, sold: 12 });
  });

  it('detects that removing a buy makes a later sell oversold', () => {
    const remaining = [
      { id: 1, type: 'buy' as const, quantity: 5, date: '2024-01-01' },
      { id: 3, type: 'sell' as const, quantity: 8, date: '2024-04-01' },
    ];
    expect(findOversell(remaining)?.dealId).toBe(3);
  });

  it('ignores dividends, fees and taxes for the holding; tolerates decimal dust', () => {
    const deals = [
      { id: 1, type: 'buy' as const, quantity: 0.1, date: '2024-01-01' },
      { id: 2, type: 'buy' as const, quantity: 0.2, date: '2024-01-01' },
      { id: 3, type: 'dividend' as const, quantity: 0.3, date: '2024-01-02' },
      { id: 4, type: 'sell' as const, quantity: 0.3, date: '2024-01-03' },
    ];
    expect(findOversell(deals)).toBeNull();
    expect(finalHolding(deals)).toBe(0);
  });

  it('never lets a sell exceed the holding by a tiny amount, and counts a tiny holding as held', () => {
    expect(findOversell([{ id: 1, type: 'sell', quantity: 1e-10, date: '2024-01-01' }])).toEqual({ dealId: 1, date: '2024-01-01', held: 0, sold: 1e-10 });
    expect(
      findOversell([
        { id: 1, type: 'buy', quantity: 1, date: '2024-01-01' },
        { id: 2, type: 'sell', quantity: 1.0000000001, date: '2024-01-02' },
      ])?.dealId,
    ).toBe(2);
    // 1 - 0.9999999999 = 1e-10 is still held (the database's exact sum says so too).
    const left = [
      { id: 1, type: 'buy' as const, quantity: 1, date: '2024-01-01' },
      { id: 2, type: 'sell' as const, quantity: 0.9999999999, date: '2024-01-02' },
    ];
    expect(finalHolding(left)).toBeCloseTo(1e-10, 20);
    expect(finalHolding([{ id: 1, type: 'buy', quantity: 1e-10, date: '2024-01-01' }])).toBe(1e-10);
    expect(finalHolding([{ id: 1, type: 'buy', quantity: 5e-324, date: '2024-01-01' }])).toBe(5e-324);
  });

  it('names position transitions', () => {
    expect(positionTransition(0, 5)).toBe('opened');
    expect(positionTransition(5, 0)).toBe('closed');
    expect(positionTransition(5, 3)).toBeNull();
    expect(positionTransition(0, 0)).toBeNull();
  });
  it('gives the exact holding after each deal, a sell beyond it emptying it', () => {
    const held = runningHoldings([
      { id: 1, type: 'buy', quantity: 1, date: '2024-01-01' },
      { id: 2, type: 'dividend', quantity: 1, date: '2024-01-02' },
      { id: 3, type: 'sell', quantity: 0.9999999999, date: '2024-01-03' },
      { id: 4, type: 'sell', quantity: 1e-10, date: '2024-01-04' },
      { id: 5, type: 'sell', quantity: 5, date: '2024-01-05' },
    ]);
    expect(held[0]).toBe(1);
    expect(held[1]).toBe(1);
    expect(held[2]).toBeCloseTo(1e-10, 20);
    expect(held[2]).toBeGreaterThan(0);
    expect(held.slice(3)).toEqual([0, 0]);
  });
});
