import type { AssetType } from '@invest/contracts';
import type { Decimal } from '@invest/platform';

/** The latest rate alerts know for one asset (from RatesUpdated). */
export interface RateView {
  assetType: AssetType;
  assetId: number;
  ticker: string;
  /**
   * The rate as RatesUpdated carries it, a double: its shortest round-trip text is the exact rate (what
   * `latest_rates.rate` stores, and what the decider compares as a Decimal).
   */
  rate: number | null;
  change24h: number | null;
  /** The provider's time of the rate. */
  asOf: Date;
  /** When the market service recorded it (the RatesUpdated event's time): the start of the latency. */
  observedAt: Date;
}

export type NotificationKind = 'price-target' | 'price-change';

/** What evaluation needs of a notification and its condition. */
export interface NotificationState {
  id: number;
  userId: string;
  kind: NotificationKind;
  targetType: 'asset' | 'portfolio' | 'watchlist';
  targetId: number;
  assetType: AssetType | null;
  isActive: boolean;
  operator: '>=' | '<=';
  /** Target price, or the price-change step in percent: exact, as stored (`numeric`). */
  value: Decimal;
  /** Price-change: the current threshold as stored (before the daily reset is applied). */
  initialValue: Decimal;
  cooldownMinutes: number | null;
  lastTriggeredAt: Date | null;
  cycle: number;
  /**
   * Price-target: the provider's time of the rate its operator was decided from at creation; a rate older than
   * it never fires it (it may be older than the direction). Null for price-change and rows created before.
   */
  operatorRateAsOf: Date | null;
}

export interface EvaluationContext {
  now: Date;
  /** Rates older than this never fire. */
  maxRateAgeMs: number;
  /** MARKET_TZ: the daily reset happens at the start of its day. */
  marketTz: string;
}

/** A firing: its key, what crossed, and the thresholds it names (`evolve` gives the state after it). */
export interface FiringDecision {
  notificationId: number;
  /** Unique per notification: the database refuses a second firing of the same step. */
  stepKey: string;
  crossed: RateView[];
  /** The rate that headlines the firing (the one that crossed furthest). */
  headline: RateView;
  threshold: Decimal;
  nextThreshold: Decimal | null;
  cooldownEndsAt: Date | null;
  /** The cycle the firing belongs to (a daily reset starts the next one). */
  cycle: number;
  firedAt: Date;
}
