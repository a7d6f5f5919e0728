import type { PlanCode, PlanView } from '@invest/contracts';
import { toMinorUnits } from './money.js';

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

/** The four plans of the spec: basic-m (id 1) and basic-y (id 2) are paid; free is the default tier; free-forever is complimentary. */
export function planCatalog(prices: PlanPrices = DEFAULT_PRICES): Plan[] {
  return [
    { id: 1, code: 'basic-m', title: 'Basic, monthly', price: prices.basicMonthly, currency: prices.currency, period: 'month', paid: true },
    { id: 2, code: 'basic-y', title: 'Basic, yearly', price: prices.basicYearly, currency: prices.currency, period: 'year', paid: true },
    { id: 3, code: 'free', title: 'Free', price: null, currency: null, period: null, paid: false },
    { id: 4, code: 'free-forever', title: 'Free forever', price: null, currency: null, period: null, paid: false },
  ];
}

export function planView(p: Plan): PlanView {
  return { id: p.id, code: p.code, title: p.title, price: p.price, currency: p.currency, period: p.period, paid: p.paid };
}

/** Tolerance of the amount heuristic: a charge within this share of a plan's price is that plan. */
export const AMOUNT_TOLERANCE_PERCENT = 10n;

/**
 * The plan a provider payment is for (the spec: exact price match, otherwise a heuristic):
 * 1. a paid plan whose price and currency equal the payment's;
 * 2. else, among the paid plans in that currency whose price is within ±10 % of the amount (a price change
 *    between checkout and charge), the one the widget's `Data.plan` names, or else the nearest;
 * 3. else none: the payment is recorded as unattributed for an operator.
 * A lower amount naming a plan is never that plan: the widget's amount and `Data` are set in the browser, so
 * a token payment (0.01) naming a yearly plan would buy it.
 */
export function planForPayment(plans: readonly Plan[], amount: string, currency: string, namedPlan?: string): Plan | undefined {
  const minor = toMinorUnits(amount);
  if (minor === undefined || minor <= 0n) return undefined;
  const paid = plans.filter((p) => p.paid && p.price !== null && p.currency === currency);
  const priceOf = (p: Plan) => toMinorUnits(p.price!)!;
  const exact = paid.find((p) => priceOf(p) === minor);
  if (exact) return exact;
  const distanceOf = (p: Plan) => (minor > priceOf(p) ? minor - priceOf(p) : priceOf(p) - minor);
  const near = paid.filter((p) => distanceOf(p) * 100n <= priceOf(p) * AMOUNT_TOLERANCE_PERCENT);
  const named = near.find((p) => p.code === namedPlan);
  if (named) return named;
  let best: Plan | undefined;
  for (const p of near) if (!best || distanceOf(p) < distanceOf(best)) best = p;
  return best;
}

/** The end of one paid period that starts at `from` (calendar month or year, in UTC; Jan 31 + 1 month = Feb 28/29). */
export function addPeriod(from: Date, period: PlanPeriod): Date {
  const d = new Date(from.getTime());
  const day = d.getUTCDate();
  d.setUTCDate(1);
  if (period === 'month') d.setUTCMonth(d.getUTCMonth() + 1);
  else d.setUTCFullYear(d.getUTCFullYear() + 1);
  const lastDay = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, lastDay));
  return d;
}
