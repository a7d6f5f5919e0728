import type { AssetType, HealthMetrics } from '@invest/contracts';
import { Decimal } from '@invest/platform/decimal/decimal';

export interface PositionValue {
  ticker: string;
  title: string;
  type: AssetType;
  /** Current value (at cost when no price is known), exact. */
  value: Decimal;
}

export const DIVERSIFICATION_POSITION_WEIGHT = 0.7;
export const DIVERSIFICATION_CLASS_WEIGHT = 0.3;
export const TOP_POSITIONS = 5;

const round = (x: number, dp: number) => Math.round(x * 10 ** dp) / 10 ** dp;

/** Herfindahl-Hirschman index of shares w_i = v_i / sum(v): sum of w_i^2 (1 = one holding; 1/n = n equal ones). */
export function herfindahl(values: readonly number[]): number | null {
  const total = values.reduce((s, v) => s + v, 0);
  if (!(total > 0)) return null;
  return values.reduce((s, v) => s + (v / total) ** 2, 0);
}

/**
 * Health metrics over the open positions with a positive value (see docs/portfolio-statistics.md):
 * concentration = 100 x HHI(positions); diversification = 100 x (0.7 x (1 - HHI(positions)) +
 * 0.3 x (1 - HHI(asset classes))); asset classes and the largest positions with their weights (percent).
 * Values are summed exactly; the shares and scores derived from them are doubles.
 */
export function healthMetrics(positions: readonly PositionValue[]): HealthMetrics {
  const open = positions.filter((p) => p.value.sign() > 0);
  const total = Decimal.sum(open.map((p) => p.value));
  if (open.length === 0) {
    return {
      diversificationScore: null,
      concentrationScore: null,
      herfindahlIndex: null,
      effectivePositions: null,
      largestPositionWeight: null,
      assetClasses: [],
      topPositions: [],
    };
  }
  const percentOf = (value: Decimal) => round(value.times(Decimal.of(100)).div(total).toNumber(), 4);
  const hhi = herfindahl(open.map((p) => p.value.toNumber()))!;
  const classes = new Map<AssetType, { value: Decimal; positionsCount: number }>();
  for (const p of open) {
    const c = classes.get(p.type) ?? { value: Decimal.ZERO, positionsCount: 0 };
    c.value = c.value.plus(p.value);
    c.positionsCount += 1;
    classes.set(p.type, c);
  }
  const classHhi = herfindahl([...classes.values()].map((c) => c.value.toNumber())) ?? 1;
  const byValue = [...open].sort((a, b) => b.value.cmp(a.value) || a.ticker.localeCompare(b.ticker));
  return {
    diversificationScore: round(100 * (DIVERSIFICATION_POSITION_WEIGHT * (1 - hhi) + DIVERSIFICATION_CLASS_WEIGHT * (1 - classHhi)), 2),
    concentrationScore: round(100 * hhi, 2),
    herfindahlIndex: round(hhi, 6),
    effectivePositions: round(1 / hhi, 4),
    largestPositionWeight: percentOf(byValue[0]!.value),
    assetClasses: [...classes.entries()]
      .sort(([ta, a], [tb, b]) => b.value.cmp(a.value) || ta.localeCompare(tb))
      .map(([type, c]) => ({ type, value: c.value.round(8).toString(), weight: percentOf(c.value), positionsCount: c.positionsCount })),
    topPositions: byValue.slice(0, TOP_POSITIONS).map((p) => ({
      ticker: p.ticker,
      title: p.title,
      type: p.type,
      value: p.value.round(8).toString(),
      weight: percentOf(p.value),
    })),
  };
}
