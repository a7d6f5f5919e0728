import type { AssetRef, DealType } from '@invest/contracts';
import { Decimal } from '@invest/platform/decimal/decimal';
import { describe, expect, it } from 'vitest';
import { naiveValueHistory } from '../testing/naive-value-history.js';
import { assetKey, type DealInput } from '../statistics/statistics.types.js';
import { assetCloses } from './closes-pages.js';
import { type AssetCloses, type DailyClose, dayNumber, type HistoryPoint, rangeStart, thinPoints, valueHistory, withLivePrices } from './value-history.js';

const sber = { type: 'share' as const, id: 1 };
const gazp = { type: 'share' as const, id: 2 };
let nextId = 1;
const deal = (type: DealType, asset: AssetRef, quantity: string | number, price: string | number, date: string): DealInput => ({
  id: nextId++,
  type,
  asset,
  quantity: Decimal.of(quantity),
  price: Decimal.of(price),
  commission: Decimal.of(1),
  date,
});
const dailyOf = (entries: [AssetRef, [string, string | number][]][]) =>
  new Map<string, DailyClose[]>(entries.map(([a, list]) => [assetKey(a), list.map(([date, close]) => ({ date, close: Decimal.of(close) }))]));
const closesOf = (entries: [AssetRef, [string, string | number][]][]) => new Map([...dailyOf(entries)].map(([key, list]) => [key, assetCloses(list)]));
const plain = (points: HistoryPoint[]) => points.map((p) => [p.date, p.value.toString(), p.invested.toString()]);

describe('valueHistory', () => {
  it('values a buy at each day’s close from the deal’s date on', () => {
    const h = valueHistory([deal('buy', sber, 10, 100, '2024-03-04')], closesOf([[sber, [['2024-03-01', 95], ['2024-03-04', 101], ['2024-03-05', 102.5]]]]), '2024-03-05');
    // A close before the first deal is the price the first day carries if it has none of its own; here it has one.
    expect(plain(h.points)).toEqual([
      ['2024-03-04', '1010', '1000'],
      ['2024-03-05', '1025', '1000'],
    ]);
    expect(h.positions).toEqual([{ asset: sber, quantity: Decimal.of(10), costBasis: Decimal.of(1000), lastClose: Decimal.of(102.5) }]);
  });

  it('a partial sale keeps the average price: invested falls by the cost of what was sold', () => {
    const h = valueHistory(
      [deal('buy', sber, 10, 100, '2024-03-04'), deal('buy', sber, 10, 130, '2024-03-05'), deal('sell', sber, 5, 150, '2024-03-06')],
      closesOf([[sber, [['2024-03-04', 100], ['2024-03-05', 130], ['2024-03-06', 150]]]]),
      '2024-03-06',
    );
    // 20 for 2300 → average 115; 5 sold at that average leave 15 × 115 = 1725.
    expect(plain(h.points)).toEqual([
      ['2024-03-04', '1000', '1000'],
      ['2024-03-05', '2600', '2300'],
      ['2024-03-06', '2250', '1725'],
    ]);
  });

  it('reads closes of differing scales and unit counts past 2^53 exactly', () => {
    const closes: AssetCloses = {
      days: ['2024-03-04', '2024-03-05', '2024-03-06'].map(dayNumber),
      units: [1005, '123456789012345678', -0],
      scales: [1, 8, 0],
    };
    const h = valueHistory([deal('buy', sber, '0.5', 100, '2024-03-04')], new Map([[assetKey(sber), closes]]), '2024-03-06');
    expect(plain(h.points).map(([d, v]) => [d, v])).toEqual([
      ['2024-03-04', '50.25'],
      ['2024-03-05', '617283945.06172839'],
      ['2024-03-06', '0'],
    ]);
  });

  it('carries Friday’s close over the weekend', () => {
    const h = valueHistory([deal('buy', sber, 2, 100, '2024-03-07')], closesOf([[sber, [['2024-03-07', 100], ['2024-03-08', 110], ['2024-03-11', 120]]]]), '2024-03-11');
    expect(plain(h.points).map(([d, v]) => [d, v])).toEqual([
      ['2024-03-07', '200'],
      ['2024-03-08', '220'],
      ['2024-03-09', '220'],
      ['2024-03-10', '220'],
      ['2024-03-11', '240'],
    ]);
  });

  it('an asset without any close yet counts at cost, and at its close once it has one', () => {
    const h = valueHistory(
      [deal('buy', sber, 1, 100, '2024-03-04'), deal('buy', gazp, 3, '10.5', '2024-03-04')],
      closesOf([[sber, [['2024-03-04', 100], ['2024-03-05', 90]]], [gazp, [['2024-03-06', 12]]]]),
      '2024-03-06',
    );
    expect(plain(h.points)).toEqual([
      ['2024-03-04', '131.5', '131.5'],
      ['2024-03-05', '121.5', '131.5'],
      ['2024-03-06', '126', '131.5'],
    ]);
  });

  it('a position sold out is worth nothing and costs nothing; a later deal or close past `to` is ignored', () => {
    const h = valueHistory(
      [deal('buy', sber, 4, 100, '2024-03-04'), deal('sell', sber, 4, 110, '2024-03-05'), deal('buy', sber, 1, 100, '2024-03-09')],
      closesOf([[sber, [['2024-03-04', 105], ['2024-03-07', 120]]]]),
      '2024-03-06',
    );
    expect(plain(h.points)).toEqual([
      ['2024-03-04', '420', '400'],
      ['2024-03-05', '0', '0'],
      ['2024-03-06', '0', '0'],
    ]);
    expect(h.positions).toEqual([]);
  });

  it('has no points without deals', () => {
    expect(valueHistory([], new Map(), '2024-03-06')).toEqual({ points: [], positions: [] });
  });

  it('revalues the last day at live prices, keeping the last close where there is none', () => {
    const h = valueHistory(
      [deal('buy', sber, 2, 100, '2024-03-04'), deal('buy', gazp, 1, 50, '2024-03-04')],
      closesOf([[sber, [['2024-03-04', 100]]], [gazp, [['2024-03-04', 60]]]]),
      '2024-03-05',
    );
    const points = withLivePrices(h, new Map([[assetKey(sber), Decimal.of('101.25')]]));
    expect(plain(points)).toEqual([
      ['2024-03-04', '260', '250'],
      ['2024-03-05', '262.5', '250'],
    ]);
  });

  it('equals a day-by-day recomputation from every deal on a random history', () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const assets = [sber, gazp, { type: 'bond' as const, id: 3 }];
    const deals: DealInput[] = [];
    for (let i = 0; i < 120; i++) {
      const a = assets[Math.floor(rnd() * assets.length)]!;
      const date = new Date(Date.UTC(2024, 0, 1) + Math.floor(rnd() * 90) * 86_400_000).toISOString().slice(0, 10);
      const type: DealType = rnd() < 0.6 ? 'buy' : rnd() < 0.5 ? 'dividend' : 'sell';
      deals.push(deal(type, a, type === 'sell' ? 1 : Math.ceil(rnd() * 5), (50 + rnd() * 100).toFixed(2), date));
    }
    // Sells may exceed the holding here; both sides apply the same rule (the excess empties the position).
    const daily = dailyOf(
      assets.slice(0, 2).map((a) => [a, Array.from({ length: 60 }, (_, i) => [new Date(Date.UTC(2024, 0, 2 + i + Math.floor(i / 5) * 2)).toISOString().slice(0, 10), (90 + rnd() * 20).toFixed(4)] as [string, string])]),
    );
    const closes = new Map([...daily].map(([key, list]) => [key, assetCloses(list)]));
    const fast = valueHistory(deals, closes, '2024-04-15').points;
    expect(fast.length).toBeGreaterThan(90);
    expect(plain(fast)).toEqual(plain(naiveValueHistory(deals, daily, '2024-04-15')));
  });
});

describe('rangeStart and thinPoints', () => {
  it('goes back whole months, to the month’s last day when it is shorter', () => {
    expect(rangeStart('1M', '2024-03-31')).toBe('2024-02-29');
    expect(rangeStart('6M', '2024-08-15')).toBe('2024-02-15');
    expect(rangeStart('1Y', '2024-02-29')).toBe('2023-02-28');
    expect(rangeStart('ALL', '2024-02-29')).toBeUndefined();
  });

  it('keeps the last point and every step-th before it', () => {
    expect(thinPoints([1, 2, 3, 4, 5, 6, 7], 3)).toEqual({ points: [1, 4, 7], step: 3 });
    expect(thinPoints([1, 2], 3)).toEqual({ points: [1, 2], step: 1 });
  });
});
