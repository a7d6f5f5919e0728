import type { PlanCode, PlanView } from '@invest/contracts';
import { fromMinorUnits, toMinorUnits } from './money.js';

export type PlanPeriod = 'month' | 'year';

/** A plan as billing decides with it. Prices and currency are configuration; ids and codes are the spec's. */
export interface Plan {
  id: number;
  code: PlanCode;
  title: string;
  /** Exact decimal string for paid plans; null for free ones. */
  price: string | null;
  currency: string | null;
  /** One paid period; null for plans with no end. */
  period: PlanPeriod | null;
  paid: boolean;
}

export interface PlanPrices {
  basicMonthly: string;
  basicYearly: string;
  currency: string;
}

export const DEFAULT_PRICES: PlanPrices = { basicMonthly: '299.00', basicYearly: '2990.00', currency: 'RUB' };

/**
 * The four plans of the spec: basic-m (id 1) and basic-y (id 2) are paid; free is the default tier; free-forever
 * is complimentary. Prices are kept as the two-place text every amount is compared and shown in (`299` →
 * `299.00`); one that is not a positive amount with at most two places throws.
 */
export function planCatalog(prices: PlanPrices = DEFAULT_PRICES): Plan[] {
  return [
    { id: 1, code: 'basic-m', title: 'Basic, monthly', price: twoPlaces(prices.basicMonthly), currency: prices.currency, period: 'month', paid: true },
    { id: 2, code: 'basic-y', title: 'Basic, yearly', price: twoPlaces(prices.basicYearly), currency: prices.currency, period: 'year', paid: true },
    { id: 3, code: 'free', title: 'Free', price: null, currency: null, period: null, paid: false },
    { id: 4, code: 'free-forever', title: 'Free forever', price: null, currency: null, period: null, paid: false },
  ];
}

function twoPlaces(price: string): string {
  const minor = toMinorUnits(price);
  if (minor === undefined || minor <= 0n) throw new Error(`plan price ${JSON.stringify(price)} is not a positive amount with at most two decimal places`);
  return fromMinorUnits(minor);
}

export function planView(p: Plan): PlanView {
  return { id: p.id, code: p.code, title: p.title, price: p.price, currency: p.currency, period: p.period, paid: p.paid };
}

/**
 * The share of a plan's period a payment bought: `paidMinor / priceMinor` of it (minor units, both below
 * 2^53). Null: the plan's price exactly, one whole (calendar) period.
 */
export interface PeriodShare {
  paidMinor: number;
  priceMinor: number;
}

/** What a provider payment buys: a paid plan, for one period or a share of one. */
export interface PaymentPlan {
  plan: Plan;
  share: PeriodShare | null;
}

/** The most periods one payment buys (a mistyped amount must not end in the year 300000; an operator refunds). */
export const MAX_PERIODS_PER_PAYMENT = 100;

/**
 * The plan a provider payment is for (the spec: exact price match, otherwise a heuristic):
 * 1. a paid plan whose price and currency equal the payment's: one period of it;
 * 2. else the paid plan in that currency whose price is nearest the amount by ratio (150 and 300 RUB are
 *    nearer 299 than 2990; 1,500 and 2,800 nearer 2990), for the share of its period the amount paid:
 *    a price changed between checkout and charge, a partial or a doubled payment each buy exactly their
 *    money's worth, and one worth less than a day of it (a token 0.01) buys none (`buysLessThanADay`),
 *    whatever the widget's `Data` names;
 * 3. else none (no amount, or no plan in that currency): unattributed, for an operator.
 */
export function planForPayment(plans: readonly Plan[], amount: string, currency: string): PaymentPlan | undefined {
  const minor = toMinorUnits(amount);
  if (minor === undefined || minor <= 0n) return undefined;
  const priced = plans.filter((p) => p.paid && p.price !== null && p.period !== null && p.currency === currency).map((plan) => ({ plan, price: toMinorUnits(plan.price!)! }));
  const exact = priced.find((p) => p.price === minor);
  if (exact) return { plan: exact.plan, share: null };
  // Nearest by ratio: max(a, p) / min(a, p), compared by cross-multiplying (exact, no floats).
  const ratio = (price: bigint): [bigint, bigint] => (minor > price ? [minor, price] : [price, minor]);
  let best: (typeof priced)[number] | undefined;
  for (const p of priced) {
    if (!best) best = p;
    else {
      const [n1, d1] = ratio(p.price);
      const [n2, d2] = ratio(best.price);
      if (n1 * d2 < n2 * d1) best = p;
    }
  }
  return best && { plan: best.plan, share: { paidMinor: Number(minor), priceMinor: Number(best.price) } };
}

/** The least paid time a payment grants (issue 30: a token 0.01 RUB had unlocked the paid limits for the rest of the day). */
export const MIN_PAID_TIME_MS = 86_400_000;

/**
 * Whether a payment buys less than one day of the period that starts at `from` (`MIN_PAID_TIME_MS`): such a
 * payment is recorded but grants no paid access. Decided exactly, as `paid × period length < price × one day`
 * in integers; the price itself (`share` null) never is.
 */
export function buysLessThanADay(from: Date, period: PlanPeriod, share: PeriodShare | null): boolean {
  if (share === null) return false;
  const length = BigInt(addPeriod(from, period).getTime() - from.getTime());
  return BigInt(share.paidMinor) * length < BigInt(share.priceMinor) * BigInt(MIN_PAID_TIME_MS);
}

/**
 * The end of one paid period that starts at `from` (calendar month or year, in UTC; Jan 31 + 1 month = Feb 28/29).
 * `anchorDay`, the day of the month the subscription started on, keeps renewals on it after a shorter month
 * (started Jan 31: Feb 28, then Mar 31, not Mar 28), as Stripe's billing anchor and Postgres's `+ interval` do.
 */
export function addPeriod(from: Date, period: PlanPeriod, anchorDay = from.getUTCDate()): Date {
  const d = new Date(from.getTime());
  d.setUTCDate(1);
  if (period === 'month') d.setUTCMonth(d.getUTCMonth() + 1);
  else d.setUTCFullYear(d.getUTCFullYear() + 1);
  d.setUTCDate(Math.min(anchorDay, daysInMonth(d)));
  return d;
}

function daysInMonth(d: Date): number {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
}

/**
 * The day of the month a run's periods end on: its start's, while its paid end is still on it (or on the last
 * day of a shorter month, at the start's time of day); none once a part-period payment moved the end off it.
 */
export function anchorDayOf(startsAt: Date, endsAt: Date): number | undefined {
  const day = startsAt.getUTCDate();
  const sameTime = startsAt.getTime() % 86_400_000 === endsAt.getTime() % 86_400_000;
  const onAnchor = endsAt.getUTCDate() === day || (endsAt.getUTCDate() === daysInMonth(endsAt) && endsAt.getUTCDate() < day);
  return sameTime && onAnchor ? day : undefined;
}

/**
 * The end of the paid time a payment buys from `from`: one period for a whole one, else its share of the
 * period that starts at `from`, to the millisecond (rounded down), at most `MAX_PERIODS_PER_PAYMENT` periods.
 */
export function paidUntil(from: Date, period: PlanPeriod, share: PeriodShare | null, anchorDay?: number): Date {
  const whole = addPeriod(from, period, anchorDay);
  if (share === null || share.paidMinor === share.priceMinor) return whole;
  const length = BigInt(whole.getTime() - from.getTime());
  const bought = (length * BigInt(share.paidMinor)) / BigInt(share.priceMinor);
  const most = length * BigInt(MAX_PERIODS_PER_PAYMENT);
  return new Date(from.getTime() + Number(bought < most ? bought : most));
}
