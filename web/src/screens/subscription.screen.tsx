import { useCallback, useEffect, useState } from 'react';
import { ApiError } from '../api/api-error';
import { type Answer, api } from '../api/client';
import { ConfirmDialog } from '../components/confirm-dialog';
import { FormError } from '../components/form-bits';
import { Link } from '../components/link';
import { PaymentHistory } from '../components/payment-history';
import { showToast } from '../components/toast';
import { Modal } from '../components/modal';
import { formatDateTime, formatMoney } from '../format/number-format';
import { useLocale } from '../i18n';
import { useSession } from '../session';
import { useTr } from '../tr';
import { useCatalogNames } from '../catalog-names';

type Plan = NonNullable<Answer<'/api/plans', 'get'>['data']>[number];
type Subscription = Answer<'/api/subscription', 'get'>['data'];

/**
 * Plans and prices (public), the user's subscription (synchronised with the provider when the screen opens),
 * and checkout: the CloudPayments widget pays with the invoice id the client chose, then `/api/subscribe`
 * confirms that invoice with the provider and records the subscription. Keyed by the user (like RequireSession):
 * another user signing in starts it afresh, with nothing of the previous user's subscription or checkout.
 */
export default function SubscriptionScreen() {
  const session = useSession();
  return <Subscription key={session?.userId ?? ''} />;
}

function Subscription() {
  const t = useTr();
  const names = useCatalogNames();
  const locale = useLocale();
  const session = useSession();
  const [plans, setPlans] = useState<Plan[]>([]);
  const [subscription, setSubscription] = useState<Subscription | undefined>(undefined);
  const [syncError, setSyncError] = useState<unknown>(null);
  const [checkout, setCheckout] = useState<Plan | null>(null);
  // The checkout's invoice outlives its dialog: once the widget reported a payment, the dialog closed and opened
  // again (for any plan) confirms that payment instead of paying again (a second charge, a second recurring
  // subscription at the provider). A new invoice only after a confirmed one.
  const [invoice, setInvoice] = useState<Invoice | null>(null);
  const open = (p: Plan) => {
    setInfo(null);
    const paidFor = invoice?.paid ? plans.find((x) => x.code === invoice.plan) : undefined;
    const plan = paidFor ?? p;
    if (!invoice || invoice.plan !== plan.code) setInvoice({ id: crypto.randomUUID(), plan: plan.code, paid: false });
    setCheckout(plan);
  };
  const [info, setInfo] = useState<string | null>(null);
  const [publicId, setPublicId] = useState<string>('');
  const [widgetUrl, setWidgetUrl] = useState<string>('');

  useEffect(() => {
    api.get('/api/plans').then((r) => setPlans(r.data ?? []), setSyncError);
    api.get('/api/client-config').then((c) => {
      setPublicId(c.data.cloudpayments_public_id);
      setWidgetUrl(c.data.payment_widget_url);
    }, () => undefined);
  }, []);

  // The provider may know of payments or cancellations we have not heard of: sync first, read as a fallback.
  const sync = useCallback(async () => {
    setSyncError(null);
    try {
      setSubscription((await api.post('/api/sync-subscription')).data);
    } catch (err) {
      setSyncError(err);
      api.get('/api/subscription').then((r) => setSubscription(r.data), () => undefined);
    }
  }, []);
  useEffect(() => {
    if (session) void sync();
  }, [session, sync]);

  return (
    <section data-testid="subscription">
      <h1>{t('Подписка', 'Subscription')}</h1>
      {session ? (
        <div className="panel" data-testid="subscription-status" data-status={subscription === undefined ? 'loading' : (subscription?.status ?? 'none')} data-plan={subscription?.plan.code ?? ''} data-usable={subscription?.usable ? 'true' : 'false'}>
          {subscription === undefined ? (
            <span className="muted">{t('Проверяем подписку…', 'Checking your subscription…')}</span>
          ) : subscription ? (
            <>
              <strong data-testid="subscription-plan">{names.plan(subscription.plan)}</strong> ·{' '}
              {subscription.usable && subscription.status === 'cancelled' && subscription.ends_at ? (
                // Cancelled but paid for: usable to the end (or its grace period's), and can still be resumed before it.
                <span data-testid="subscription-state">
                  {t(`Подписка отменена, действует до ${formatDateTime(accessUntil(subscription), locale)}`, `Subscription cancelled, active until ${formatDateTime(accessUntil(subscription), locale)}`)}
                </span>
              ) : (
                <>
                  <span data-testid="subscription-state">
                    {subscription.usable ? t('активна', 'active') : subscription.status === 'cancelled' ? t('отменена', 'cancelled') : t('неактивна', 'inactive')}
                  </span>
                  {subscription.ends_at && (
                    <span className="muted">
                      {' '}
                      · {t('до', 'until')} {formatDateTime(subscription.ends_at, locale)}
                    </span>
                  )}
                </>
              )}
              {subscription.status === 'past_due' && subscription.usable && subscription.grace_until && (
                // The provider declined the last charge and tries again (three attempts in all); access is kept meanwhile.
                <p className="form-error" role="alert" data-testid="subscription-past-due">
                  {t(
                    `Не удалось списать оплату подписки. Доступ сохранён до ${formatDateTime(subscription.grace_until, locale)}. Осталось попыток списания: ${subscription.attempts_left}. Проверьте, что на карте достаточно средств.`,
                    `The subscription charge was declined. Your access is kept until ${formatDateTime(subscription.grace_until, locale)}. Charge attempts left: ${subscription.attempts_left}. Please check that the card has enough funds.`,
                  )}
                </p>
              )}
              <RenewalActions subscription={subscription} onChange={setSubscription} />
              <PlanChange subscription={subscription} plans={plans} onChange={setSubscription} />
            </>
          ) : (
            <span data-testid="subscription-state">{t('Бесплатный тариф', 'Free plan')}</span>
          )}
          <FormError error={syncError} testId="subscription-sync-error" />
        </div>
      ) : (
        <p className="panel">
          <Link to="/sign-in?next=/subscription" data-testid="sign-in-link">
            {t('Войдите', 'Sign in')}
          </Link>
          {t(', чтобы оформить подписку.', ' to subscribe.')}
        </p>
      )}
      {session && subscription !== undefined && <PaymentHistory changeKey={subscription?.updated_at} />}
      {info && (
        <p className="panel" role="status" data-testid="subscription-info">
          {info}
        </p>
      )}
      <div className="plans" data-testid="plans">
        {plans.map((p) => (
          <div key={p.code} className="panel" data-testid="plan" data-plan={p.code}>
            <h2>{names.plan(p)}</h2>
            <p data-testid="plan-price">
              {p.price === null ? t('Бесплатно', 'Free') : `${formatMoney(Number(p.price), p.currency ?? 'RUB', locale)} / ${p.period === 'year' ? t('год', 'year') : t('месяц', 'month')}`}
            </p>
            {p.paid && session && (
              <button type="button" data-testid="plan-buy" onClick={() => open(p)} disabled={subscription?.usable === true && subscription.plan.paid}>
                {t('Оформить', 'Subscribe')}
              </button>
            )}
          </div>
        ))}
      </div>
      {checkout && invoice && (
        <PaymentWidget
          plan={checkout}
          invoice={invoice}
          onPaid={() => setInvoice({ ...invoice, paid: true })}
          publicId={publicId}
          widgetUrl={widgetUrl}
          accountId={session?.userId ?? ''}
          onClose={() => {
            setCheckout(null);
            // A payment may have gone through meanwhile (its Pay notification records it): show what exists.
            void sync();
          }}
          onDone={(s, message) => {
            setCheckout(null);
            setInvoice(null);
            if (s !== undefined) setSubscription(s);
            // A 409 means this tab's picture was stale: read the subscription that exists.
            else void sync();
            if (message) setInfo(message);
            else showToast(t('Подписка оформлена', 'Subscription started'), 'success');
          }}
        />
      )}
    </section>
  );
}

/** When access ends: the paid end, or the grace period's end after a declined charge. */
function accessUntil(s: NonNullable<Subscription>): string {
  return s.grace_until && s.ends_at && s.grace_until > s.ends_at ? s.grace_until : (s.ends_at ?? '');
}

/**
 * Cancel (asked first) while a paid subscription renews itself; resume while a cancelled one still runs. Both
 * answer the subscription as it is now; a refusal (422/409, in the server's words) is shown beside the button.
 */
function RenewalActions({ subscription, onChange }: { subscription: NonNullable<Subscription>; onChange: (s: Subscription) => void }) {
  const t = useTr();
  const locale = useLocale();
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  // After declined charges the provider gave up on (a grace period running past the end): nothing to resume.
  if (!subscription.usable || !subscription.plan.paid || !subscription.ends_at || (subscription.status === 'cancelled' && subscription.grace_until)) return null;
  const endsAt = formatDateTime(subscription.ends_at, locale);

  const resume = async () => {
    setBusy(true);
    setError(null);
    try {
      onChange((await api.post('/api/subscription/resume')).data);
      showToast(t('Подписка возобновлена', 'Subscription resumed'), 'success');
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="actions" style={{ marginTop: 8 }}>
      {subscription.status === 'cancelled' ? (
        <button type="button" data-testid="subscription-resume" disabled={busy} onClick={() => void resume()}>
          {t('Возобновить подписку', 'Resume the subscription')}
        </button>
      ) : (
        <button type="button" className="secondary" data-testid="subscription-cancel" onClick={() => setAsking(true)}>
          {t('Отменить подписку', 'Cancel the subscription')}
        </button>
      )}
      <FormError error={error} testId="subscription-action-error" />
      {asking && (
        <ConfirmDialog
          title={t('Отменить подписку?', 'Cancel the subscription?')}
          message={t(
            `Автопродление отключится, новых списаний не будет. Подписка действует до ${endsAt}; до этой даты её можно возобновить.`,
            `Automatic renewal stops and nothing more is charged. The subscription stays active until ${endsAt}; you can resume it until then.`,
          )}
          confirmLabel={t('Отменить подписку', 'Cancel the subscription')}
          onConfirm={async () => {
            onChange((await api.post('/api/subscription/cancel')).data);
            showToast(t('Подписка отменена', 'Subscription cancelled'), 'success');
          }}
          onClose={() => setAsking(false)}
        />
      )}
    </div>
  );
}

/**
 * Change of plan (asked first) while a paid plan is active: monthly to yearly now, the month's unused days
 * credited against the year's price; yearly to monthly at the period's end. The server's refusal is shown beside it.
 */
function PlanChange({ subscription, plans, onChange }: { subscription: NonNullable<Subscription>; plans: Plan[]; onChange: (s: Subscription) => void }) {
  const t = useTr();
  const names = useCatalogNames();
  const locale = useLocale();
  const [asking, setAsking] = useState(false);
  const target = plans.find((p) => p.paid && p.period !== null && p.period !== subscription.plan.period);
  if (subscription.status !== 'active' || !subscription.usable || !subscription.plan.paid || !subscription.ends_at || !target?.price) return null;
  const toYear = target.period === 'year';
  const endsAt = formatDateTime(subscription.ends_at, locale);
  const price = formatMoney(Number(target.price), target.currency ?? 'RUB', locale);
  return (
    <div className="actions" style={{ marginTop: 8 }}>
      <button type="button" className="secondary" data-testid="subscription-change-plan" data-plan={target.code} onClick={() => setAsking(true)}>
        {toYear ? t('Перейти на годовой тариф', 'Switch to the yearly plan') : t('Перейти на месячный тариф', 'Switch to the monthly plan')}
      </button>
      {asking && (
        <ConfirmDialog
          title={t(`Сменить тариф на «${names.plan(target)}»?`, `Change the plan to "${names.plan(target)}"?`)}
          message={
            toYear
              ? t(
                  `Годовой тариф начнётся сейчас: с сохранённой карты спишем ${price} за вычетом неиспользованных дней текущего месяца. Подписка продлится на год с сегодняшнего дня.`,
                  `The yearly plan starts now: the saved card is charged ${price} less the unused days of this month. The subscription runs a year from today.`,
                )
              : t(
                  `Месячный тариф начнётся ${endsAt}, когда закончится оплаченный год: тогда спишем ${price}, и дальше каждый месяц. До этого действует годовой тариф.`,
                  `The monthly plan starts on ${endsAt}, when the paid year ends: ${price} is charged then, and every month after. The yearly plan runs until then.`,
                )
          }
          confirmLabel={t('Сменить тариф', 'Change the plan')}
          onConfirm={async () => {
            onChange((await api.post('/api/subscription/change-plan', { body: { plan: target.code } })).data);
            showToast(toYear ? t('Тариф сменён на годовой', 'Switched to the yearly plan') : t(`Тариф сменится на месячный ${endsAt}`, `The plan switches to monthly on ${endsAt}`), 'success');
          }}
          onClose={() => setAsking(false)}
        />
      )}
    </div>
  );
}

/** The provider's widget API, which its script defines as `window.cp` (shared/reference/cloudpayments.md: `invoiceId`, `accountId`, `data`). */
interface CloudPaymentsWidget {
  pay(action: 'charge', options: Record<string, unknown>, callbacks: { onSuccess?: () => void; onFail?: (reason: string | null) => void }): void;
}
declare global {
  interface Window {
    cp?: { CloudPayments: new (options: { language: string }) => CloudPaymentsWidget };
  }
}

let widgetScript: Promise<void> | undefined;

/** Loads the widget's script once; a failed load is tried again at the next checkout. */
function loadWidget(url: string): Promise<void> {
  if (window.cp) return Promise.resolve();
  widgetScript ??= new Promise<void>((resolve, reject) => {
    const el = document.createElement('script');
    el.src = url;
    el.async = true;
    el.onload = () => resolve();
    el.onerror = () => {
      widgetScript = undefined;
      el.remove();
      reject(new Error(`payment widget script ${url} did not load`));
    };
    document.head.append(el);
  });
  return widgetScript;
}

/** What the provider's widget says when the payer closed it: no error to show. */
const CANCELLED = 'User has cancelled';

/**
 * Checkout: the plan and price; the server is asked first (`/api/subscription/checkout`), then the provider's widget (its script, from `/api/client-config`: the provider's,
 * or in development the local provider's, which speaks the same API) pays with our invoice id and this user as the
 * account, with a recurrent charge every period of the plan; on its success `/api/subscribe` confirms that invoice
 * with the provider and records it (the provider's Pay notification records the same payment once).
 */
/** A checkout's invoice: its id (the widget's InvoiceId, `/api/subscribe`'s uuid), its plan, and whether the widget paid it. */
interface Invoice {
  id: string;
  plan: string;
  paid: boolean;
}

function PaymentWidget({
  plan,
  invoice,
  onPaid,
  publicId,
  widgetUrl,
  accountId,
  onClose,
  onDone,
}: {
  plan: Plan;
  invoice: Invoice;
  onPaid: () => void;
  publicId: string;
  widgetUrl: string;
  accountId: string;
  onClose: () => void;
  onDone: (s: Subscription | undefined, info?: string) => void;
}) {
  const t = useTr();
  const names = useCatalogNames();
  const locale = useLocale();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [failure, setFailure] = useState<string | null>(null);
  // While the provider's own dialog is open ours steps aside: a modal dialog would leave the provider's inert.
  const [providerOpen, setProviderOpen] = useState(false);
  // Once the widget said the payment went through, only the confirm is repeated (see `Invoice`).
  const { id: invoiceId, paid } = invoice;

  const confirm = async () => {
    try {
      const r = await api.post('/api/subscribe', { body: { uuid: invoiceId, plan: plan.code } });
      onDone(r.data);
    } catch (err) {
      // 409: an active subscription exists and this request changed nothing; the server's text says so.
      if (err instanceof ApiError && err.kind === 'conflict') onDone(undefined, err.message);
      else setError(err);
    } finally {
      setBusy(false);
    }
  };

  const pay = async () => {
    setBusy(true);
    setError(null);
    setFailure(null);
    if (paid) return confirm();
    // One purchase at a time: the server says whether this checkout may start (409 while a paid plan is usable,
    // say bought in another tab) and what the widget pays.
    let order: Answer<'/api/subscription/checkout', 'post'>['data'];
    try {
      order = (await api.post('/api/subscription/checkout', { body: { plan: plan.code, invoice_id: invoiceId } })).data;
    } catch (err) {
      setBusy(false);
      if (err instanceof ApiError && err.kind === 'conflict') onDone(undefined, err.message);
      else setError(err);
      return;
    }
    let widget: CloudPaymentsWidget;
    try {
      await loadWidget(widgetUrl);
      widget = new window.cp!.CloudPayments({ language: locale === 'en' ? 'en-US' : 'ru-RU' });
    } catch {
      setBusy(false);
      setFailure(t('Платёжный виджет не загрузился. Попробуйте позже.', 'The payment widget did not load. Please try again later.'));
      return;
    }
    setProviderOpen(true);
    widget.pay(
      'charge',
      {
        publicId,
        description: names.plan(plan),
        // The widget takes a number; a two-place price is exact as one.
        amount: Number(order.amount),
        currency: order.currency,
        invoiceId: order.invoice_id,
        accountId: order.account_id,
        // The receipt (54-FZ) as the reference gives its keys: the first charge's in `cloudPayments.customerReceipt`,
        // the recurring charges' in `CloudPayments.recurrent.customerReceipt` (that one unverified, reference §6).
        data: order.receipt
          ? { plan: order.plan, CloudPayments: { recurrent: { ...order.recurrent, customerReceipt: order.receipt } }, cloudPayments: { customerReceipt: order.receipt } }
          : { plan: order.plan, CloudPayments: { recurrent: order.recurrent } },
      },
      {
        onSuccess: () => {
          setProviderOpen(false);
          onPaid();
          void confirm();
        },
        onFail: (reason) => {
          setProviderOpen(false);
          setBusy(false);
          if (reason !== CANCELLED) setFailure(t(`Оплата не прошла: ${reason ?? 'ошибка'}.`, `The payment failed: ${reason ?? 'error'}.`));
        },
      },
    );
  };

  return (
    <Modal onClose={onClose} labelledBy="widget-title" testId="payment-widget" suspended={providerOpen}>
      <h2 id="widget-title">{t('Оплата', 'Payment')}</h2>
      <p>
        {names.plan(plan)}: <strong>{plan.price === null ? '—' : formatMoney(Number(plan.price), plan.currency ?? 'RUB', locale)}</strong>
      </p>
      <p className="muted small" data-testid="payment-widget-public-id">
        CloudPayments · publicId: {publicId} · InvoiceId: {invoiceId}
      </p>
      <FormError error={error} fields={[]} testId="payment-error" />
      {failure && (
        <p className="form-error" role="alert" data-testid="payment-failure">
          {failure}
        </p>
      )}
      <div className="actions" style={{ marginTop: 12 }}>
        <button type="button" className="secondary" onClick={onClose}>
          {t('Отмена', 'Cancel')}
        </button>
        <button type="button" data-testid="payment-pay" disabled={busy || !widgetUrl || !accountId} onClick={() => void pay()}>
          {busy ? t('Оплата…', 'Paying…') : paid ? t('Подтвердить оплату', 'Confirm the payment') : t('Оплатить', 'Pay')}
        </button>
      </div>
    </Modal>
  );
}
