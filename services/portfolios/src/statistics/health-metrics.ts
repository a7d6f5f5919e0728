import type { AssetType, HealthMetrics } from '@invest/contracts';

export interface PositionValue {
  ticker: string;
  title: string;
  type: AssetType;
  /** Current value (at cost when no price is known). */
  value: number;
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
 */
export function healthMetrics(positions: readonly PositionValue[]): HealthMetrics {
  const open = positions.filter((p) => p.value > 0);
  const total = open.reduce((s, p) => s + p.value, 0);
  const hhi = herfindahl(open.map((p) => p.value));
  if (hhi === null || !(total > 0)) {
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
  const classes = new Map<AssetType, { value: number; positionsCount: number }>();
  for (const p of open) {
    const c = classes.get(p.type) ?? { value: 0, positionsCount: 0 };
    c.value += p.value;
    c.positionsCount += 1;
    classes.set(p.type, c);
  }
  const classHhi = herfindahl([...classes.values()].map((c) => c.value)) ?? 1;
  const byValue = [...open].sort((a, b) => b.value - a.value || a.ticker.localeCompare(b.ticker));
  return {
    diversificationScore: round(100 * (DIVERSIFICATION_POSITION_WEIGHT * (1 - hhi) + DIVERSIFICATION_CLASS_WEIGHT * (1 - classHhi)), 2),
    concentrationScore: round(100 * hhi, 2),
    herfindahlIndex: round(hhi, 6),
    effectivePositions: round(1 / hhi, 4),
    largestPositionWeight: round((100 * byValue[0]!.value) / total, 4),
    assetClasses: [...classes.entries()]
      .map(([type, c]) => ({ type, value: round(c.value, 8), weight: round((100 * c.value) / total, 4), positionsCount: c.positionsCount }))
      .sort((a, b) => b.value - a.value || a.type.localeCompare(b.type)),
    topPositions: byValue.slice(0, TOP_POSITIONS).map((p) => ({
      ticker: p.ticker,
      title: p.title,
      type: p.type,
      value: round(p.value, 8),
      weight: round((100 * p.value) / total, 4),
    })),
  };
}
