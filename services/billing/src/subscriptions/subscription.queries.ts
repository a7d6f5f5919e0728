import { type Page, type PageQuery, pageMeta, type PaymentHistoryItem, type PaymentView, type SubscriptionView } from '@invest/contracts';
import type { SqlClient } from '@invest/platform';
import { type Plan, planView } from '../plans/plan-catalog.js';
import { CHARGE_ATTEMPTS } from './subscription.decider.js';

interface Row {
  id: string;
  code: string;
  status: 'active' | 'cancelled' | 'past_due';
  starts_at: Date;
  ends_at: Date | null;
  grace_until: Date | null;
  failed_charges: number;
  external_id: string | null;
  updated_at: Date;
}

const SELECT = `select s.id, p.code, st.code as status, s.starts_at, s.ends_at, s.grace_until, s.failed_charges, s.external_id, s.updated_at
  from subscriptions s join subscription_plans p on p.id = s.subscription_plan_id join subscription_statuses st on st.id = s.status_id`;

function toView(row: Row, plans: readonly Plan[], now: Date): SubscriptionView {
  const plan = plans.find((p) => p.code === row.code)!;
  const ends = row.ends_at ? new Date(row.ends_at) : null;
  const grace = row.grace_until ? new Date(row.grace_until) : null;
  return {
    id: row.id,
    plan: planView(plan),
    status: row.status,
    starts_at: new Date(row.starts_at).toISOString(),
    ends_at: ends ? ends.toISOString() : null,
    external_id: row.external_id,
    usable: new Date(row.starts_at) <= now && (ends === null || ends > now || (grace !== null && grace > now)),
    grace_until: grace ? grace.toISOString() : null,
    failed_charges: row.failed_charges,
    attempts_left: Math.max(0, CHARGE_ATTEMPTS - row.failed_charges),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

/** The user's current subscription: the most recently updated one (spec), or null. */
export async function findCurrentSubscription(db: SqlClient, userId: string, plans: readonly Plan[], now: Date): Promise<SubscriptionView | null> {
  const [row] = await db.query<Row>(`${SELECT} where s.user_id = $1 order by s.stream_version desc limit 1`, [userId]);
  return row ? toView(row, plans, now) : null;
}

export async function findSubscription(db: SqlClient, id: string, plans: readonly Plan[], now: Date): Promise<SubscriptionView | null> {
  const [row] = await db.query<Row>(`${SELECT} where s.id = $1`, [id]);
  return row ? toView(row, plans, now) : null;
}

/**
 * Subscriptions usable now (paid period running, cancelled ones included, or a grace period after a declined
 * charge), best plan first; `ends_at` is when the access ends (the grace period's end past the paid one).
 */
export async function usableSubscriptions(db: SqlClient, userId: string, now: Date): Promise<{ code: string; ends_at: Date | null }[]> {
  return db.query(
    `select p.code, case when s.ends_at is not null then greatest(s.ends_at, s.grace_until) end as ends_at
     from subscriptions s join subscription_plans p on p.id = s.subscription_plan_id
     where s.user_id = $1 and s.starts_at <= $2 and (s.ends_at is null or s.ends_at > $2 or s.grace_until > $2)
     order by s.ends_at desc nulls first`,
    [userId, now],
  );
}

/** The payment recorded under a client uuid (or with it as InvoiceId), if any. */
export async function findPaymentByUuid(
  db: SqlClient,
  uuid: string,
): Promise<{ user_id: string; subscription_id: string; grants_access: boolean; amount: string; currency: string } | undefined> {
  const [row] = await db.query<{ user_id: string; subscription_id: string; grants_access: boolean; amount: string; currency: string }>(
    // The client's own record first, else the first payment recorded under that InvoiceId.
    `select user_id, subscription_id::text, grants_access, amount::text, currency from subscription_payments
     where uuid = $1 or invoice_id = $1 order by (uuid = $1) desc, created_at, id limit 1`,
    [uuid],
  );
  return row;
}

/** The user's recorded payments, newest first (a user has one a period or so: no paging). */
export async function listPayments(db: SqlClient, userId: string): Promise<PaymentView[]> {
  const rows = await db.query<Omit<PaymentView, 'created_at'> & { created_at: Date }>(
    `select uuid, transaction_id, amount::text as amount, currency, source, grants_access,
            case when grants_access then subscription_id::text end as subscription_id, created_at
     from subscription_payments where user_id = $1 order by created_at desc, transaction_id desc`,
    [userId],
  );
  return rows.map((r) => ({ ...r, created_at: new Date(r.created_at).toISOString() }));
}

/** One page of the user's payment history (paid, refunded and failed charges), newest first. */
export async function paymentHistoryPage(db: SqlClient, userId: string, query: PageQuery, plans: readonly Plan[]): Promise<Page<PaymentHistoryItem>> {
  const [count] = await db.query<{ total: string }>('select count(*)::text as total from payment_history where user_id = $1', [userId]);
  const rows = await db.query<{ payment_id: string; at: Date; amount: string; currency: string; plan_code: string | null; status: PaymentHistoryItem['status']; card_last_four: string | null; receipt_url: string | null }>(
    `select payment_id, at, amount::text as amount, currency, plan_code, status, card_last_four, receipt_url from payment_history
     where user_id = $1 order by at desc, payment_id desc limit $2 offset $3`,
    [userId, query.per_page, (query.page - 1) * query.per_page],
  );
  const data = rows.map((r): PaymentHistoryItem => {
    const plan = plans.find((p) => p.code === r.plan_code);
    return {
      id: r.payment_id,
      date: new Date(r.at).toISOString(),
      amount: r.amount,
      currency: r.currency,
      plan: plan ? planView(plan) : null,
      status: r.status,
      card_last_four: r.card_last_four,
      receipt_url: r.receipt_url,
    };
  });
  return { data, meta: pageMeta(query, Number(count?.total ?? 0), data.length) };
}
