import { Decimal } from '@invest/platform/decimal/decimal';
import { describe, expect, it } from 'vitest';
import { healthMetrics, herfindahl } from './health-metrics.js';

const pos = (ticker: string, value: number | string, type: 'share' | 'bond' | 'etf' = 'share') => ({ ticker, title: ticker, type, value: Decimal.of(value) });

describe('health metrics', () => {
  it('one position: fully concentrated, not diversified', () => {
    const h = healthMetrics([pos('SBER', 1000)]);
    expect(h.concentrationScore).toBe(100);
    expect(h.diversificationScore).toBe(0);
    expect(h.effectivePositions).toBe(1);
    expect(h.largestPositionWeight).toBe(100);
  });

  it('ten equal shares: HHI 0.1, concentration 10, diversification 100 x 0.7 x 0.9 = 63', () => {
    const h = healthMetrics(Array.from({ length: 10 }, (_, i) => pos(`S${i}`, 500)));
    expect(h.herfindahlIndex).toBeCloseTo(0.1, 9);
    expect(h.concentrationScore).toBe(10);
    expect(h.diversificationScore).toBe(63);
    expect(h.effectivePositions).toBe(10);
    expect(h.topPositions).toHaveLength(5);
    expect(h.assetClasses).toEqual([{ type: 'share', value: '5000', weight: 100, positionsCount: 10 }]);
  });

  it('a 75/25 split across two classes', () => {
    // HHI = 0.75^2 + 0.25^2 = 0.625; classes are the same split: 0.625.
    // diversification = 100 x (0.7 x 0.375 + 0.3 x 0.375) = 37.5; concentration = 62.5.
    const h = healthMetrics([pos('SBER', 750), pos('OFZ', 250, 'bond')]);
    expect(h.concentrationScore).toBe(62.5);
    expect(h.diversificationScore).toBe(37.5);
    expect(h.largestPositionWeight).toBe(75);
    expect(h.topPositions.map((p) => [p.ticker, p.weight])).toEqual([
      ['SBER', 75],
      ['OFZ', 25],
    ]);
    expect(h.assetClasses.map((c) => [c.type, c.weight])).toEqual([
      ['share', 75],
      ['bond', 25],
    ]);
  });

  it('sums values exactly (0.1 + 0.2 is 0.3) and answers them as decimal text', () => {
    const h = healthMetrics([pos('A', '0.1'), pos('B', '0.2')]);
    expect(h.assetClasses[0]!.value).toBe('0.3');
    expect(h.topPositions.map((p) => [p.value, p.weight])).toEqual([
      ['0.2', 66.6667],
      ['0.1', 33.3333],
    ]);
  });

  it('ignores closed (zero-value) positions and answers nulls for an empty portfolio', () => {
    expect(healthMetrics([pos('A', 100), pos('B', 0)]).concentrationScore).toBe(100);
    const empty = healthMetrics([]);
    expect(empty).toEqual({
      diversificationScore: null,
      concentrationScore: null,
      herfindahlIndex: null,
      effectivePositions: null,
      largestPositionWeight: null,
      assetClasses: [],
      topPositions: [],
    });
    expect(herfindahl([0, 0])).toBeNull();
  });
});
