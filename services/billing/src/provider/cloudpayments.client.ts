import { fetchJson, type FetchJsonOptions, ProviderError } from '@invest/platform/http/fetch-json';
import type { Logger } from '@invest/platform/logging/logger';
import type { CustomerReceipt } from '@invest/contracts';
import type { ProviderSubscription, ProviderSubscriptionStatus, ProviderSubscriptionTerms } from '../subscriptions/subscription.decider.js';
import { normalizeAmount } from '../plans/money.js';

export interface CloudPaymentsClientOptions {
  /** `CLOUDPAYMENTS_API_URL`, e.g. `https://api.cloudpayments.ru`. */
  baseUrl: string;
  publicId: string;
  apiSecret: string;
  timeoutMs: number;
  retries: number;
  backoffMs: number;
  logger?: Logger;
}

/** A transaction as `/payments/find` describes it, with the amount as an exact decimal string. */
export interface ProviderTransaction {
  transactionId: string;
  amount: string | undefined;
  currency: string;
  invoiceId: string | null;
  accountId: string | null;
  status: string;
  subscriptionId: string | null;
  testMode: boolean;
  /** The card token for later charges (`tk_…`, `success_…` in test mode), when the provider gave one. */
  token: string | null;
  cardLastFour: string | null;
}

/** What `subscriptions/create` needs: the card token, the account, the charge and when it starts. */
export interface NewProviderSubscription {
  token: string;
  accountId: string;
  description: string;
  /** Exact decimal (`"299.00"`); sent as the JSON number the API takes (two places are exact as one). */
  amount: string;
  currency: string;
  startDate: Date;
  /** Months between charges (`Interval: Month`, `Period`), as the widget's recurrent sets them. */
  months: number;
  /** The receipt (54-FZ) every charge of it carries (`CustomerReceipt`, reference §6): `customerReceipt(plan)`; only a free plan has none. */
  receipt?: CustomerReceipt | null;
}

interface Envelope<M> {
  Success: boolean;
  Message: string | null;
  Model?: M;
}

const STATUSES: ProviderSubscriptionStatus[] = ['Active', 'PastDue', 'Cancelled', 'Rejected', 'Expired'];
const text = (v: unknown): string | null => (v === null || v === undefined || v === '' ? null : String(v));

/**
 * The CloudPayments API calls billing makes (reference §4): POST with a JSON body and HTTP Basic auth
 * (Public ID : API secret), `{Success, Message, Model}` envelopes. Timeouts, retries with backoff on
 * 429/5xx/network; a failure is a ProviderError the caller turns into a 503.
 */
/** The provider's transaction model (`payments/find`, `payments/tokens/charge`) in our terms. */
function transactionOf(m: Record<string, unknown>): ProviderTransaction {
  return {
    transactionId: String(m.TransactionId),
    amount: normalizeAmount(m.Amount),
    currency: String(m.Currency ?? ''),
    invoiceId: text(m.InvoiceId),
    accountId: text(m.AccountId),
    status: String(m.Status ?? ''),
    subscriptionId: text(m.SubscriptionId),
    testMode: m.TestMode === true,
    token: text(m.Token),
    cardLastFour: text(m.CardLastFour),
  };
}

export class CloudPaymentsClient {
  constructor(private readonly opts: CloudPaymentsClientOptions) {}

  /** The last transaction with this InvoiceId, or null when the provider knows none. */
  async findPayment(invoiceId: string): Promise<ProviderTransaction | null> {
    // The TransactionId as sent: through a double, one above 2^53 would differ from the webhook's (read exactly),
    // and one payment would be recorded twice.
    const res = await this.post<Record<string, unknown>>('/payments/find', { InvoiceId: invoiceId }, exactTransactionId);
    if (!res.Success || !res.Model) {
      if (/not found/i.test(res.Message ?? '') || !res.Model) return null;
    }
    return transactionOf(res.Model!);
  }

  /** The account's subscriptions at the provider, cancelled ones included. */
  async findSubscriptions(accountId: string): Promise<ProviderSubscription[]> {
    const res = await this.post<Record<string, unknown>[]>('/subscriptions/find', { accountId });
    if (!res.Success) throw new ProviderError('cloudpayments', 'bad_payload', `subscriptions/find failed: ${res.Message ?? 'no message'}`);
    return (res.Model ?? []).flatMap((m) => {
      const status = STATUSES.find((s) => s === m.Status);
      if (!status || !m.Id) return [];
      return [{ id: String(m.Id), status, terms: subscriptionTerms({ amount: m.Amount, currency: m.Currency, interval: m.Interval, period: m.Period, startedAt: m.StartDateIso }) }];
    });
  }

  /**
   * `subscriptions/cancel`: stops a provider subscription's charges. One the provider no longer knows, or has
   * already ended, has nothing left to charge: that is success too (a repeat after a lost answer).
   */
  async cancelSubscription(id: string): Promise<void> {
    const res = await this.post<unknown>('/subscriptions/cancel', { Id: id });
    if (!res.Success && !/not found|cancel|reject|expire/i.test(res.Message ?? '')) {
      throw new ProviderError('cloudpayments', 'bad_payload', `subscriptions/cancel failed: ${res.Message ?? 'no message'}`);
    }
  }

  /**
   * `subscriptions/create`: a new recurring charge of the card behind `token`, first on `startDate`. `requestId`
   * goes as `X-Request-ID` (the provider keeps the result an hour): two resumes of one cancellation racing, or a
   * retry after a lost answer, get the one subscription, never two charging the card.
   */
  async createSubscription(s: NewProviderSubscription, requestId: string): Promise<string> {
    const res = await this.post<Record<string, unknown>>(
      '/subscriptions/create',
      {
        Token: s.token,
        AccountId: s.accountId,
        Description: s.description,
        Amount: Number(s.amount),
        Currency: s.currency,
        RequireConfirmation: false,
        StartDate: s.startDate.toISOString(),
        Interval: 'Month',
        Period: s.months,
        ...(s.receipt ? { CustomerReceipt: s.receipt } : {}),
      },
      undefined,
      { 'x-request-id': requestId },
    );
    if (!res.Success || !res.Model?.Id) throw new ProviderError('cloudpayments', 'bad_payload', `subscriptions/create failed: ${res.Message ?? 'no subscription in the answer'}`);
    return String(res.Model.Id);
  }

  /**
   * `payments/tokens/charge`: charges the card behind `token` once, now (a change of plan's price less its credit).
   * `requestId` goes as `X-Request-ID`, so a retry after a lost answer charges once. A declined charge
   * (`Success: false` with a transaction model) throws with the provider's reason.
   */
  async chargeToken(
    c: { token: string; accountId: string; amount: string; currency: string; invoiceId: string; description: string; receipt?: CustomerReceipt | null },
    requestId: string,
  ): Promise<ProviderTransaction> {
    const res = await this.post<Record<string, unknown>>(
      '/payments/tokens/charge',
      {
        Token: c.token,
        AccountId: c.accountId,
        Amount: Number(c.amount),
        Currency: c.currency,
        InvoiceId: c.invoiceId,
        Description: c.description,
        // Reference §6: a token charge carries its receipt in JsonData, keyed as the widget's data is.
        ...(c.receipt ? { JsonData: { cloudPayments: { customerReceipt: c.receipt } } } : {}),
      },
      exactTransactionId,
      { 'x-request-id': requestId },
    );
    const m = res.Model;
    if (!res.Success || !m?.TransactionId) throw new ProviderError('cloudpayments', 'bad_payload', `payments/tokens/charge failed: ${text(m?.CardHolderMessage) ?? res.Message ?? 'no transaction in the answer'}`);
    return transactionOf(m);
  }

  /**
   * `payments/refund`: returns `amount` of a completed payment to the card. `requestId` goes as `X-Request-ID`, so
   * a retry after a lost answer (or a repeated notification of the payment) refunds once. The provider then sends
   * the Refund notification, which records it.
   */
  async refundPayment(transactionId: string, amount: string, requestId: string): Promise<void> {
    // The TransactionId as written (ids above 2^53 stay exact); the amount is two-place decimal text, exact as a number.
    if (!/^\d{1,20}$/.test(transactionId)) throw new ProviderError('cloudpayments', 'bad_payload', `payments/refund: ${transactionId} is no TransactionId`);
    const body = `{"TransactionId":${transactionId},"Amount":${Number(amount).toFixed(2)}}`;
    const res = await this.post<unknown>('/payments/refund', new RawJson(body), undefined, { 'x-request-id': requestId });
    if (!res.Success) throw new ProviderError('cloudpayments', 'bad_payload', `payments/refund failed: ${res.Message ?? 'no message'}`);
  }

  private async post<M>(path: string, body: unknown, reviver?: FetchJsonOptions['reviver'], headers: Record<string, string> = {}): Promise<Envelope<M>> {
    const o = this.opts;
    const auth = Buffer.from(`${o.publicId}:${o.apiSecret}`).toString('base64');
    const res = await fetchJson<Envelope<M>>(`${o.baseUrl.replace(/\/$/, '')}${path}`, {
      provider: 'cloudpayments',
      timeoutMs: o.timeoutMs,
      retries: o.retries,
      backoffMs: o.backoffMs,
      ...(o.logger ? { logger: o.logger } : {}),
      ...(reviver ? { reviver } : {}),
      init: { method: 'POST', body: body instanceof RawJson ? body.text : JSON.stringify(body), headers: { 'content-type': 'application/json', authorization: `Basic ${auth}`, ...headers } },
    });
    if (!res || typeof res !== 'object' || typeof res.Success !== 'boolean') {
      throw new ProviderError('cloudpayments', 'bad_payload', `${path}: answer has no Success flag`);
    }
    return res;
  }
}

/** A JSON body written by hand (numbers JSON.stringify cannot write exactly). */
class RawJson {
  constructor(readonly text: string) {}
}

/** A provider subscription's terms from its fields (API model or Recurrent notification), or null when one is missing or unreadable. */
export function subscriptionTerms(f: { amount: unknown; currency: unknown; interval: unknown; period: unknown; startedAt: unknown }): ProviderSubscriptionTerms | null {
  const amount = normalizeAmount(f.amount);
  const currency = text(f.currency);
  const interval = text(f.interval);
  const period = f.period === undefined || f.period === null || f.period === '' ? 1 : Number(f.period);
  const startedAt = providerInstant(f.startedAt);
  if (!amount || !currency || !interval || !Number.isInteger(period) || period < 1 || !startedAt) return null;
  return { amount, currency, interval, period, startedAt };
}

/**
 * A provider date as an ISO instant, or null: `…Iso` fields and notifications' dates are UTC without a zone
 * marker (`2025-03-12T09:41:07`, `2025-03-12 09:41:07`); anything unreadable is null.
 */
export function providerInstant(value: unknown): string | null {
  const t = text(value);
  if (t === null) return null;
  const iso = t.replace(/^(\d{4}-\d\d-\d\d) (\d)/, '$1T$2');
  const d = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(iso) ? iso : `${iso}Z`);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** A `TransactionId` number as its text (`JSON.parse` reviver). */
const exactTransactionId: NonNullable<FetchJsonOptions['reviver']> = (key, value, context) =>
  key === 'TransactionId' && typeof value === 'number' && context?.source !== undefined ? context.source : value;
