/**
 * A local stand-in for CloudPayments (shared/reference/cloudpayments.md), speaking its wire format: the API
 * (`/payments/find`, `/subscriptions/find`, `/subscriptions/cancel`, `/subscriptions/create` with `X-Request-ID`, `/payments/refund`, `/test`; POST, JSON, HTTP Basic, `{Success, Message, Model}`),
 * and a notifier that sends correctly signed Pay notifications as form bodies with lower-case escapes, as
 * the provider does. Tests queue payments and faults; the demo's `/demo/pay` makes a payment and notifies
 * the gateway, so a person can try the whole flow with curl.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signCloudPayments } from '../provider/cloudpayments-signature.js';

export interface FakePayment {
  TransactionId: number;
  Amount: number;
  Currency: string;
  InvoiceId: string | null;
  AccountId: string | null;
  Status: 'Completed' | 'Authorized' | 'Declined' | 'Cancelled' | 'AwaitingAuthentication';
  SubscriptionId: string | null;
  TestMode: boolean;
  /** The card token for later charges (test mode: `success_…`); `subscriptions/create` takes it. */
  Token?: string | null;
  /** `4242` when not set. */
  CardLastFour?: string;
  /** The receipt object the payment carried (the widget's `data.cloudPayments.customerReceipt`); its Receipt notification repeats it. */
  CustomerReceipt?: unknown;
}

export interface FakeRefund {
  TransactionId: number;
  PaymentTransactionId: number;
  Amount: number;
}

export interface FakeSubscription {
  Id: string;
  AccountId: string;
  Amount: number;
  Currency: string;
  Status: 'Active' | 'PastDue' | 'Cancelled' | 'Rejected' | 'Expired';
  Interval: 'Month' | 'Year';
  /** Intervals between charges (the provider's default 1). */
  Period?: number;
  NextTransactionDateIso: string | null;
  /** Its first scheduled charge, UTC without a zone marker (as the provider answers it). */
  StartDateIso?: string | null;
  /** The card token it charges (`subscriptions/create`). */
  Token?: string | null;
  /** Consecutive declined charges (reset by a successful one); three make it Rejected. */
  FailedTransactionsNumber?: number;
  /** The receipt object each of its charges carries (`subscriptions/create`'s `CustomerReceipt`). */
  CustomerReceipt?: unknown;
  Description?: string;
}

export interface FakeCloudPaymentsOptions {
  publicId: string;
  apiSecret: string;
  /** Where `/demo/pay` sends the Pay notification (the gateway's `/api/provider/payment-success`). */
  notifyUrl?: string;
  /** Where `payments/refund` sends the Refund notification (the gateway's `/api/provider/refund`). */
  refundNotifyUrl?: string;
  /** Where a declined charge's Fail notification goes (`/api/provider/fail`). */
  failNotifyUrl?: string;
  /** Where a subscription's Recurrent notification goes when its status changes (`/api/provider/recurrent`). */
  recurrentNotifyUrl?: string;
  /** Where a payment's Receipt notification (54-FZ) goes after its Pay notification (`/api/provider/receipt`). */
  receiptNotifyUrl?: string;
  /** Plan prices for `/demo/pay` (code → amount). */
  prices?: Record<string, string>;
  currency?: string;
}

export interface FakeCloudPayments {
  url: string;
  /** Its payment widget script (`CLOUDPAYMENTS_WIDGET_URL`), the provider's `cp.CloudPayments` API. */
  widgetUrl: string;
  payments: FakePayment[];
  subscriptions: FakeSubscription[];
  /** Refunds made (`payments/refund`): the refund's TransactionId, the payment's and the amount. */
  refunds: FakeRefund[];
  /** API requests seen, for assertions. */
  requests: { path: string; body: unknown; authorized: boolean }[];
  /** Answer the next `n` API calls with HTTP 503 (`Infinity`: down until set to 0). */
  failNext(n: number): void;
  /** Whether a widget payment's Receipt notification follows its Pay notification (default true; false: the receipt never comes). */
  sendReceipts(on: boolean): void;
  /** Sends payment `p`'s signed Receipt notification to `receiptNotifyUrl`, with a receipt link this stand-in serves. */
  issueReceipt(p: FakePayment): Promise<{ status: number; body: string }>;
  /** Sends every notification (Pay, Fail, Receipt, Refund, Recurrent) to the gateway at `base`, as the cabinet's URLs would. */
  notifyGateway(base: string): void;
  addPayment(p: Partial<FakePayment> & { AccountId: string | null; Amount: number }): FakePayment;
  /**
   * The payer cancels a subscription on the provider's site (my.cloudpayments.ru): its status becomes Cancelled and
   * the signed Recurrent notification goes to `url` (the gateway's `/api/provider/recurrent`).
   */
  cancelByPayer(id: string, url: string): Promise<{ status: number; body: string }>;
  /**
   * The provider's scheduled charge of subscription `id` is declined (insufficient funds): a Declined transaction,
   * the Fail notification to `failNotifyUrl`; the third in a row makes the subscription Rejected and sends its
   * Recurrent notification to `recurrentNotifyUrl`, as the provider does.
   */
  declineRecurringCharge(id: string): Promise<{ payment: FakePayment; fail: { status: number; body: string }; rejected: { status: number; body: string } | null }>;
  close(): Promise<void>;
}

const WIDGET_PATH = '/widget/cloudpayments.js';

/**
 * The widget script as the provider's (`widget.cloudpayments.ru/bundles/cloudpayments.js`) is used:
 * `new cp.CloudPayments({language}).pay('charge', {publicId, description, amount, currency, invoiceId,
 * accountId, data: {CloudPayments: {recurrent: {interval, period}}, cloudPayments: {customerReceipt}}},
 * {onSuccess, onFail, onComplete})`. It shows its own dialog (a test card, editable; a declining card or the
 * "decline" box declines it), pays at this provider (`/demo/pay`, which sends the Pay notification and then the
 * Receipt, or the Fail one) and calls back, as the real widget does after the bank's answer.
 */
function widgetScript(origin: string): string {
  return `(function () {
  var ORIGIN = ${JSON.stringify(origin)};
  function CloudPayments(options) { this.language = (options && options.language) || 'ru-RU'; }
  CloudPayments.prototype.pay = function (action, o, callbacks) {
    callbacks = callbacks || {};
    var en = this.language.indexOf('en') === 0;
    var box = document.createElement('div');
    box.setAttribute('data-testid', 'cp-widget');
    box.setAttribute('role', 'dialog');
    box.style.cssText = 'position:fixed;inset:0;background:rgba(0,0,0,.5);display:flex;align-items:center;justify-content:center;z-index:1000';
    var card = document.createElement('div');
    card.style.cssText = 'background:#fff;color:#000;padding:24px;border-radius:8px;min-width:280px;font:14px sans-serif';
    var title = document.createElement('p');
    title.textContent = 'CloudPayments (' + o.publicId + '): ' + o.description + ', ' + o.amount + ' ' + o.currency;
    // The card: a test card pays; a declining one (reference §5: 4012 8888 8888 1881, …) or the box declines it.
    var number = document.createElement('input');
    number.setAttribute('data-testid', 'cp-widget-card');
    number.setAttribute('aria-label', en ? 'Card number' : 'Номер карты');
    number.value = '4242 4242 4242 4242';
    number.style.cssText = 'display:block;margin:8px 0;width:100%;box-sizing:border-box';
    var declineLabel = document.createElement('label');
    declineLabel.style.cssText = 'display:block;margin:8px 0';
    var decline = document.createElement('input');
    decline.type = 'checkbox';
    decline.setAttribute('data-testid', 'cp-widget-decline');
    declineLabel.append(decline, document.createTextNode(en ? ' Decline this card (insufficient funds)' : ' Отклонить карту (недостаточно средств)'));
    var pay = document.createElement('button');
    pay.setAttribute('data-testid', 'cp-widget-pay');
    pay.textContent = en ? 'Pay' : 'Оплатить';
    var cancel = document.createElement('button');
    cancel.setAttribute('data-testid', 'cp-widget-cancel');
    cancel.textContent = en ? 'Cancel' : 'Отмена';
    card.append(title, number, declineLabel, pay, cancel);
    box.append(card);
    document.body.append(box);
    function done(ok, reason, code) {
      box.remove();
      if (ok && callbacks.onSuccess) callbacks.onSuccess(o);
      if (!ok && callbacks.onFail) callbacks.onFail(reason, o);
      if (callbacks.onComplete) callbacks.onComplete({ success: ok, code: ok ? 0 : (code || 5000), message: reason || null }, o);
    }
    cancel.onclick = function () { done(false, 'User has cancelled'); };
    pay.onclick = function () {
      pay.disabled = true;
      var recurrent = o.data && o.data.CloudPayments && o.data.CloudPayments.recurrent;
      var receipt = o.data && o.data.cloudPayments && o.data.cloudPayments.customerReceipt;
      fetch(ORIGIN + '/demo/pay', { method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ accountId: o.accountId, amount: o.amount, currency: o.currency, invoiceId: o.invoiceId, recurrent: recurrent,
          customerReceipt: receipt, cardNumber: number.value, decline: decline.checked }) })
        .then(function (r) {
          if (r.ok) return done(true, null);
          // A declined card: the reason and code as the provider's fail callback gives them (5051: insufficient funds).
          return r.json().then(function (b) { done(false, (b && b.reason) || 'Declined', b && b.reasonCode); }, function () { done(false, 'Declined'); });
        }, function () { done(false, 'Network error'); });
    };
  };
  CloudPayments.prototype.charge = function (o, s, f) { return this.pay('charge', o, { onSuccess: s, onFail: f }); };
  window.cp = { CloudPayments: CloudPayments };
})();
`;
}

let nextTransactionId = 2_000_000_000 + Math.floor(Math.random() * 1_000_000_000);

/** Card numbers the widget declines (reference §5, insufficient funds): the Fail notification goes out, its onFail is called. */
export const DECLINED_CARDS = ['4012888888881881', '5105105105105100', '2202202202202200', '4000056655665556', '5404000000000043', '2203000000000043'];

/** Form-encodes like CloudPayments (.NET UrlEncode): lower-case escapes, `+` for space, empty fields kept. */
export function cloudPaymentsForm(fields: Record<string, string | number | null | undefined>): string {
  const enc = (v: string) =>
    encodeURIComponent(v)
      .replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())
      .replace(/%20/g, '+');
  return Object.entries(fields)
    .map(([k, v]) => `${enc(k)}=${enc(v === null || v === undefined ? '' : String(v))}`)
    .join('&');
}

/** The fields of a Pay notification for a payment, in the provider's order, with a test card's data. */
export function payNotificationFields(p: FakePayment, extra: Record<string, string> = {}): Record<string, string | number | null> {
  const amount = p.Amount.toFixed(2);
  return {
    TransactionId: p.TransactionId,
    Amount: amount,
    Currency: p.Currency,
    PaymentAmount: amount,
    PaymentCurrency: p.Currency,
    OperationType: 'Payment',
    InvoiceId: p.InvoiceId,
    AccountId: p.AccountId,
    SubscriptionId: p.SubscriptionId,
    Name: 'Анна Смирнова',
    Email: 'anna@example.org',
    DateTime: new Date().toISOString().slice(0, 19).replace('T', ' '),
    IpAddress: '203.0.113.25',
    IpCountry: 'RU',
    IpCity: 'Нижний Новгород',
    CardFirstSix: '424242',
    CardLastFour: p.CardLastFour ?? '4242',
    CardType: 'Visa',
    CardExpDate: '12/27',
    Issuer: 'CloudPayments',
    IssuerBankCountry: 'RU',
    Description: 'Тариф',
    AuthCode: 'A1B2C3',
    Token: p.Token ?? '',
    TestMode: p.TestMode ? 1 : 0,
    Status: p.Status,
    GatewayName: 'Test',
    Data: '',
    TotalFee: 0,
    Rrn: '',
    ...extra,
  };
}

/** The fields of a Recurrent notification of a subscription, as the provider sends them when its status changes. */
export function recurrentNotificationFields(s: FakeSubscription): Record<string, string | number | null> {
  return {
    Id: s.Id,
    AccountId: s.AccountId,
    Description: s.Description ?? 'Тариф',
    Email: 'anna@example.org',
    Amount: s.Amount.toFixed(2),
    Currency: s.Currency,
    RequireConfirmation: 0,
    StartDate: (s.StartDateIso ?? '').replace('T', ' '),
    Interval: s.Interval,
    Period: s.Period ?? 1,
    Status: s.Status,
    SuccessfulTransactionsNumber: 1,
    FailedTransactionsNumber: s.FailedTransactionsNumber ?? 0,
    MaxPeriods: '',
    LastTransactionDate: '',
    NextTransactionDate: (s.NextTransactionDateIso ?? '').replace('T', ' '),
  };
}

/** The fields of a Fail notification (reference §3): a Pay's card and payer data, no token, and why it was declined. */
export function failNotificationFields(p: FakePayment, reason = 'InsufficientFunds', reasonCode = 5051): Record<string, string | number | null> {
  const { Token: _token, AuthCode: _auth, Status: _status, TotalFee: _fee, ...fields } = payNotificationFields(p);
  return { ...fields, Reason: reason, ReasonCode: reasonCode, ProviderMessage: reason };
}

/** The fields of a Refund notification (reference §3): the refund's TransactionId, the payment's, and what was returned. */
export function refundNotificationFields(p: FakePayment, r: FakeRefund): Record<string, string | number | null> {
  return {
    TransactionId: r.TransactionId,
    PaymentTransactionId: r.PaymentTransactionId,
    Amount: r.Amount.toFixed(2),
    DateTime: new Date().toISOString().slice(0, 19).replace('T', ' '),
    OperationType: 'Refund',
    InvoiceId: p.InvoiceId,
    AccountId: p.AccountId,
    Email: 'anna@example.org',
    Data: '',
    Rrn: '',
  };
}

/**
 * The fields of a Receipt notification (reference §6) of payment `p`: the fiscal data (plausible test values),
 * `Url` the receipt's link, `Receipt` the receipt object as JSON, and the payment's ids.
 */
export function receiptNotificationFields(p: FakePayment, url: string, type: 'Income' | 'IncomeReturn' = 'Income'): Record<string, string | number | null> {
  const n = p.TransactionId % 100_000;
  return {
    DocumentNumber: n,
    SessionNumber: 1,
    FiscalSign: String(1_000_000_000 + n),
    DeviceNumber: '0000000000012345',
    RegNumber: '0000000001012345',
    Inn: '7708806062',
    Type: type,
    Ofd: 'ofd.ru',
    Url: url,
    QrCodeUrl: `${url}/qr`,
    Amount: p.Amount.toFixed(2),
    DateTime: new Date().toISOString().slice(0, 19).replace('T', ' '),
    Receipt: JSON.stringify(p.CustomerReceipt ?? {}),
    TransactionId: p.TransactionId,
    InvoiceId: p.InvoiceId,
    AccountId: p.AccountId,
  };
}

/** Posts a signed notification to `url`; resolves with the status and body of the answer. */
export async function sendSignedNotification(
  url: string,
  fields: Record<string, string | number | null>,
  secret: string,
  opts: { format?: 'form' | 'json'; signWith?: 'content-hmac' | 'x-content-hmac' | 'both' | 'none' } = {},
): Promise<{ status: number; body: string }> {
  const json = opts.format === 'json';
  const raw = Buffer.from(json ? JSON.stringify(fields) : cloudPaymentsForm(fields));
  const sig = signCloudPayments(raw, secret);
  const headers: Record<string, string> = { 'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded' };
  const mode = opts.signWith ?? 'both';
  if (mode === 'content-hmac' || mode === 'both') headers['content-hmac'] = sig['Content-HMAC'];
  if (mode === 'x-content-hmac' || mode === 'both') headers['x-content-hmac'] = sig['X-Content-HMAC'];
  const res = await fetch(url, { method: 'POST', headers, body: raw });
  return { status: res.status, body: await res.text() };
}

/** The receipt page a Receipt notification's `Url` links: what the fiscal receipt says, plainly. */
function receiptHtml(p: FakePayment): string {
  const esc = (v: unknown) => String(v).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const items = ((p.CustomerReceipt as { Items?: { label?: unknown; amount?: unknown; vat?: unknown }[] } | undefined)?.Items ?? [])
    .map((i) => `<li>${esc(i.label)}: ${esc(i.amount)} (НДС: ${i.vat === null || i.vat === undefined ? 'без НДС' : esc(i.vat)})</li>`)
    .join('');
  return `<!doctype html><meta charset="utf-8"><title>Кассовый чек ${p.TransactionId}</title><h1>Кассовый чек (тест)</h1><p>Приход, транзакция ${p.TransactionId}, ${esc(p.Amount.toFixed(2))} ${esc(p.Currency)}</p><ul>${items}</ul>`;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startFakeCloudPayments(opts: FakeCloudPaymentsOptions, port = 0, host = '127.0.0.1'): Promise<FakeCloudPayments> {
  const payments: FakePayment[] = [];
  const subscriptions: FakeSubscription[] = [];
  const requests: FakeCloudPayments['requests'] = [];
  const refunds: FakeRefund[] = [];
  /** Answers by `X-Request-ID` (the provider keeps them an hour): a repeated request gets the first answer. */
  const answered = new Map<string, unknown>();
  let failures = 0;
  let receiptsOn = true;
  const expectedAuth = `Basic ${Buffer.from(`${opts.publicId}:${opts.apiSecret}`).toString('base64')}`;

  const addPayment: FakeCloudPayments['addPayment'] = (p) => {
    const payment: FakePayment = {
      TransactionId: nextTransactionId++,
      Currency: 'RUB',
      InvoiceId: null,
      Status: 'Completed',
      SubscriptionId: null,
      TestMode: true,
      Token: `success_${randomUUID().replaceAll('-', '').slice(0, 24)}`,
      CardLastFour: '4242',
      ...p,
    };
    payments.push(payment);
    return payment;
  };

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body));
  };

  /**
   * `POST /demo/pay {"accountId", "plan" | "amount", "currency"?, "invoiceId"?, "recurrent"?}`: pays as the widget
   * would (with `recurrent: {interval, period}`, the provider's subscription starts one interval on), then
   * notifies the gateway.
   */
  async function demoPay(body: Record<string, unknown>, res: ServerResponse) {
    const accountId = String(body.accountId ?? '');
    const plan = String(body.plan ?? 'basic-m');
    const amount = typeof body.amount === 'number' && body.amount > 0 ? body.amount : Number(opts.prices?.[plan] ?? NaN);
    if (!accountId || !Number.isFinite(amount)) return send(res, 422, { message: `accountId and an amount or a paid plan (${Object.keys(opts.prices ?? {}).join(', ')}) are required` });
    const currency = typeof body.currency === 'string' ? body.currency : (opts.currency ?? 'RUB');
    const receipt = body.customerReceipt ?? undefined;
    // A declined card (or the widget's "decline" box): a Declined transaction and its Fail notification, no subscription.
    const cardNumber = String(body.cardNumber ?? '').replace(/\D/g, '');
    if (body.decline === true || DECLINED_CARDS.includes(cardNumber)) {
      const declined = addPayment({ AccountId: accountId, Amount: amount, Currency: currency, InvoiceId: String(body.invoiceId ?? randomUUID()), Status: 'Declined', Token: null, CardLastFour: cardNumber.slice(-4) || '1881' });
      let notified: { status: number; body: string } | { error: string } | null = null;
      if (opts.failNotifyUrl) notified = await sendSignedNotification(opts.failNotifyUrl, failNotificationFields(declined), opts.apiSecret).catch((err: unknown) => ({ error: String(err) }));
      return send(res, 402, { invoiceId: declined.InvoiceId, transactionId: declined.TransactionId, reason: 'InsufficientFunds', reasonCode: 5051, notified });
    }
    const payment = addPayment({ AccountId: accountId, Amount: amount, Currency: currency, InvoiceId: String(body.invoiceId ?? randomUUID()), ...(receipt ? { CustomerReceipt: receipt } : {}), ...(cardNumber ? { CardLastFour: cardNumber.slice(-4) } : {}) });
    const recurrent = body.recurrent as { interval?: unknown; period?: unknown } | undefined;
    if (recurrent && (recurrent.interval === 'Month' || recurrent.interval === 'Year')) {
      const start = new Date();
      const months = (recurrent.interval === 'Year' ? 12 : 1) * (Number(recurrent.period) || 1);
      start.setUTCMonth(start.getUTCMonth() + months);
      const iso = start.toISOString().slice(0, 19);
      subscriptions.push({ Id: `sc_${randomUUID().replaceAll('-', '').slice(0, 24)}`, AccountId: accountId, Amount: amount, Currency: currency, Status: 'Active', Interval: 'Month', Period: months, NextTransactionDateIso: iso, StartDateIso: iso });
    }
    let notified: { status: number; body: string } | { error: string } | null = null;
    if (opts.notifyUrl && body.notify !== false) {
      notified = await sendSignedNotification(opts.notifyUrl, payNotificationFields(payment, { Data: JSON.stringify({ plan }) }), opts.apiSecret).catch((err: unknown) => ({ error: String(err) }));
    }
    // The fiscal receipt follows the payment (the provider's cash register answers after the bank).
    if (receiptsOn && opts.receiptNotifyUrl && body.notify !== false) await issueReceipt(payment).catch(() => undefined);
    return send(res, 200, { invoiceId: payment.InvoiceId, transactionId: payment.TransactionId, amount: payment.Amount.toFixed(2), notified });
  }

  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '/').split('?')[0]!;
      if (path === WIDGET_PATH) {
        res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache' });
        return res.end(widgetScript(url()));
      }
      const receiptPage = /^\/receipts\/(\d+)$/.exec(path);
      if (receiptPage && req.method === 'GET') {
        const p = payments.find((x) => String(x.TransactionId) === receiptPage[1]);
        if (!p) return send(res, 404, { Success: false, Message: 'Not found' });
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return res.end(receiptHtml(p));
      }
      // The widget script pays from the page's origin.
      res.setHeader('access-control-allow-origin', '*');
      if (req.method === 'OPTIONS') {
        res.writeHead(204, { 'access-control-allow-methods': 'POST', 'access-control-allow-headers': 'content-type' });
        return res.end();
      }
      const text = await readBody(req);
      let body: Record<string, unknown> = {};
      try {
        body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      } catch {
        return send(res, 400, { Success: false, Message: 'Body is not JSON' });
      }
      if (path === '/demo/pay') return demoPay(body, res);
      const authorized = req.headers.authorization === expectedAuth;
      requests.push({ path, body, authorized });
      if (failures > 0) {
        failures--;
        return send(res, 503, { Success: false, Message: 'Service Unavailable' });
      }
      if (!authorized) return send(res, 401, { Success: false, Message: 'Unauthorized' });
      if (req.method !== 'POST') return send(res, 405, { Success: false, Message: 'Method not allowed' });
      switch (path) {
        case '/test':
          return send(res, 200, { Success: true, Message: randomUUID() });
        case '/payments/find': {
          const invoiceId = String(body.InvoiceId ?? '');
          const found = payments.filter((p) => p.InvoiceId === invoiceId).at(-1);
          return found
            ? send(res, 200, { Success: true, Message: null, Model: { ...found, CreatedDateIso: new Date().toISOString().slice(0, 19) } })
            : send(res, 200, { Success: false, Message: 'Not found' });
        }
        case '/subscriptions/cancel': {
          const sub = subscriptions.find((x) => x.Id === String(body.Id ?? ''));
          if (!sub) return send(res, 200, { Success: false, Message: 'Not found' });
          sub.Status = 'Cancelled';
          sub.NextTransactionDateIso = null;
          return send(res, 200, { Success: true, Message: null });
        }
        case '/subscriptions/create': {
          const requestId = req.headers['x-request-id'];
          const key = typeof requestId === 'string' ? requestId : undefined;
          if (key && answered.has(key)) return send(res, 200, answered.get(key));
          const token = String(body.Token ?? '');
          const interval = body.Interval;
          const start = typeof body.StartDate === 'string' ? new Date(body.StartDate) : new Date(NaN);
          const problem = !payments.some((p) => p.Token === token && token !== '')
            ? 'Token not found'
            : !body.AccountId || typeof body.Amount !== 'number' || !(body.Amount > 0) || !body.Currency
              ? 'AccountId, Amount and Currency are required'
              : interval !== 'Day' && interval !== 'Week' && interval !== 'Month'
                ? 'Interval must be Day, Week or Month'
                : Number.isNaN(start.getTime())
                  ? 'StartDate is invalid'
                  : undefined;
          if (problem) return send(res, 200, { Success: false, Message: problem });
          const iso = start.toISOString().slice(0, 19);
          const sub: FakeSubscription = {
            Id: `sc_${randomUUID().replaceAll('-', '').slice(0, 24)}`,
            AccountId: String(body.AccountId),
            Amount: body.Amount as number,
            Currency: String(body.Currency),
            Status: 'Active',
            Interval: 'Month',
            Period: Number(body.Period) || 1,
            NextTransactionDateIso: iso,
            StartDateIso: iso,
            Token: token,
            Description: String(body.Description ?? ''),
            ...(body.CustomerReceipt ? { CustomerReceipt: body.CustomerReceipt } : {}),
          };
          subscriptions.push(sub);
          const answer = { Success: true, Message: null, Model: { ...sub, StartDate: `/Date(${start.getTime()})/`, Status: 'Active', StatusCode: 0 } };
          if (key) answered.set(key, answer);
          return send(res, 200, answer);
        }
        case '/payments/refund': {
          // Reference §6: `{TransactionId, Amount}` of a Completed payment; no more than was paid and not yet refunded.
          const requestId = req.headers['x-request-id'];
          const key = typeof requestId === 'string' ? `refund:${requestId}` : undefined;
          if (key && answered.has(key)) return send(res, 200, answered.get(key));
          const payment = payments.find((p) => String(p.TransactionId) === String(body.TransactionId ?? ''));
          const amount = typeof body.Amount === 'number' ? body.Amount : Number(body.Amount);
          const refunded = refunds.filter((r) => r.PaymentTransactionId === payment?.TransactionId).reduce((sum, r) => sum + Math.round(r.Amount * 100), 0);
          if (!payment) return send(res, 200, { Success: false, Message: 'Transaction not found' });
          if (!(amount > 0) || Math.round(amount * 100) + refunded > Math.round(payment.Amount * 100)) return send(res, 200, { Success: false, Message: 'Invalid amount' });
          const refund: FakeRefund = { TransactionId: nextTransactionId++, PaymentTransactionId: payment.TransactionId, Amount: amount };
          refunds.push(refund);
          const answer = { Success: true, Message: null, Model: { TransactionId: refund.TransactionId } };
          if (key) answered.set(key, answer);
          if (opts.refundNotifyUrl) await sendSignedNotification(opts.refundNotifyUrl, refundNotificationFields(payment, refund), opts.apiSecret).catch(() => undefined);
          return send(res, 200, answer);
        }
        case '/payments/tokens/charge': {
          // A charge of a saved card (a change of plan): one per `X-Request-ID`; no notification is sent (tests
          // make the provider's notifications themselves).
          const requestId = req.headers['x-request-id'];
          const key = typeof requestId === 'string' ? `charge:${requestId}` : undefined;
          if (key && answered.has(key)) return send(res, 200, answered.get(key));
          const token = String(body.Token ?? '');
          const card = payments.find((p) => p.Token === token && token !== '');
          const amount = typeof body.Amount === 'number' ? body.Amount : NaN;
          if (!card) return send(res, 200, { Success: false, Message: 'Token not found' });
          if (!(amount > 0) || !body.AccountId || !body.Currency) return send(res, 200, { Success: false, Message: 'AccountId, Amount and Currency are required' });
          const jsonData = body.JsonData as { cloudPayments?: { customerReceipt?: unknown } } | undefined;
          const receipt = jsonData?.cloudPayments?.customerReceipt;
          const payment = addPayment({ AccountId: String(body.AccountId), Amount: amount, Currency: String(body.Currency), InvoiceId: body.InvoiceId ? String(body.InvoiceId) : null, Token: token, CardLastFour: card.CardLastFour, ...(receipt ? { CustomerReceipt: receipt } : {}) });
          const answer = { Success: true, Message: null, Model: { ...payment, CreatedDateIso: new Date().toISOString().slice(0, 19) } };
          if (key) answered.set(key, answer);
          if (receipt && receiptsOn && opts.receiptNotifyUrl) void issueReceiptWhenRecorded(payment);
          return send(res, 200, answer);
        }
        case '/subscriptions/find': {
          const accountId = String(body.accountId ?? '');
          return send(res, 200, { Success: true, Message: null, Model: subscriptions.filter((s) => s.AccountId === accountId) });
        }
        default:
          return send(res, 404, { Success: false, Message: 'Not found' });
      }
    })().catch((err: unknown) => send(res, 500, { Success: false, Message: String(err) }));
  });

  /**
   * A token charge's receipt, sent as the provider does after the charge: the merchant records the charge only once
   * our answer reaches it, so a Receipt that overtakes it is refused (503) and sent again, a few times.
   */
  async function issueReceiptWhenRecorded(p: FakePayment): Promise<void> {
    for (let attempt = 0; attempt < 20; attempt++) {
      const sent = await issueReceipt(p).catch(() => undefined);
      if (sent?.status === 200) return;
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  function issueReceipt(p: FakePayment): Promise<{ status: number; body: string }> {
    if (!opts.receiptNotifyUrl) throw new Error('receiptNotifyUrl is not set');
    return sendSignedNotification(opts.receiptNotifyUrl, receiptNotificationFields(p, `${url()}/receipts/${p.TransactionId}`), opts.apiSecret);
  }

  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const url = () => `http://${host}:${(server.address() as AddressInfo).port}`;
  return {
    url: url(),
    widgetUrl: `${url()}${WIDGET_PATH}`,
    payments,
    subscriptions,
    refunds,
    requests,
    failNext(n) {
      failures = n;
    },
    sendReceipts(on) {
      receiptsOn = on;
    },
    notifyGateway(base) {
      const at = (path: string) => new URL(`/api/provider/${path}`, base).toString();
      Object.assign(opts, { notifyUrl: at('payment-success'), failNotifyUrl: at('fail'), receiptNotifyUrl: at('receipt'), refundNotifyUrl: at('refund'), recurrentNotifyUrl: at('recurrent') });
    },
    issueReceipt,
    addPayment,
    async declineRecurringCharge(id) {
      const sub = subscriptions.find((x) => x.Id === id);
      if (!sub) throw new Error(`no subscription ${id}`);
      if (!opts.failNotifyUrl) throw new Error('failNotifyUrl is not set');
      const payment = addPayment({ AccountId: sub.AccountId, Amount: sub.Amount, Currency: sub.Currency, SubscriptionId: sub.Id, Status: 'Declined', Token: sub.Token ?? null });
      sub.FailedTransactionsNumber = (sub.FailedTransactionsNumber ?? 0) + 1;
      sub.Status = sub.FailedTransactionsNumber >= 3 ? 'Rejected' : 'PastDue';
      const fail = await sendSignedNotification(opts.failNotifyUrl, failNotificationFields(payment), opts.apiSecret);
      let rejected = null;
      if (sub.Status === 'Rejected') {
        sub.NextTransactionDateIso = null;
        if (opts.recurrentNotifyUrl) rejected = await sendSignedNotification(opts.recurrentNotifyUrl, recurrentNotificationFields(sub), opts.apiSecret);
      }
      return { payment, fail, rejected };
    },
    async cancelByPayer(id, notifyUrl) {
      const sub = subscriptions.find((x) => x.Id === id);
      if (!sub) throw new Error(`no subscription ${id}`);
      sub.Status = 'Cancelled';
      sub.NextTransactionDateIso = null;
      return sendSignedNotification(notifyUrl, recurrentNotificationFields(sub), opts.apiSecret);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
