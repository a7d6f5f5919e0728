import type { CustomerReceipt, PlanCode } from '@invest/contracts';
import type { Plan } from './plan-catalog.js';

/** What a charge's fiscal receipt (54-FZ) says besides the price: configuration (`BILLING_RECEIPT_*`). */
export interface ReceiptSettings {
  /** The receipt line's name of each paid plan. */
  labels: Partial<Record<PlanCode, string>>;
  /** null: без НДС; else 0, 10, 20, 110 (10/110) or 120 (20/120). */
  vat: number | null;
  /** 0 ОСН, 1 УСН доход, 2 УСН доход−расход, 3 ЕНВД, 4 ЕСХН, 5 патент. */
  taxationSystem: number;
}

/** Demo defaults: a self-employed-style seller on УСН доход, no VAT. */
export const DEFAULT_RECEIPT: ReceiptSettings & { labels: Record<'basic-m' | 'basic-y', string> } = {
  labels: { 'basic-m': 'Подписка Basic, 1 месяц', 'basic-y': 'Подписка Basic, 1 год' },
  vat: null,
  taxationSystem: 1,
};

/** 4: полный расчёт (the period is paid in full at once). */
const METHOD_FULL_PAYMENT = 4;
/** 4: услуга (a subscription to a service). */
const OBJECT_SERVICE = 4;

/**
 * The provider's receipt object `R` (reference §6) for one charge of a paid plan, at its price or at `amount` (a
 * charge of another sum, such as a change of plan less its credit): one line whose amount is the whole payment,
 * as the provider's modules write it (Σ amount = the payment). Null for a free plan. No email or phone: the
 * provider's widget asks the payer for where to send it.
 */
export function customerReceipt(plan: Plan, settings: ReceiptSettings = DEFAULT_RECEIPT, amount?: string): CustomerReceipt | null {
  if (!plan.paid || plan.price === null) return null;
  // Two-place text; as a number it is exact to the kopeck (the wire takes rubles with 2 decimals).
  const price = Number(amount ?? plan.price);
  return {
    Items: [{ label: settings.labels[plan.code] ?? plan.title, price, quantity: 1, amount: price, vat: settings.vat, method: METHOD_FULL_PAYMENT, object: OBJECT_SERVICE }],
    taxationSystem: settings.taxationSystem,
    email: '',
    phone: '',
  };
}
