import type { BillingEvent } from '@invest/contracts';
import { eventIdFor, type SqlClient } from '@invest/platform';

/** SubscriptionPayment.platform_id of CloudPayments, the only card provider so far. */
export const CLOUDPAYMENTS_PLATFORM_ID = 1;
const STATUS_ID = { active: 1, cancelled: 2, past_due: 3 } as const;
const planId = (param: string) => `(select id from subscription_plans where code = ${param})`;

/**
 * Applies one billing event to the read models (subscriptions, subscription_payments,
 * unattributed_payments). Called in the transaction that appends the event, and by the rebuild, so the
 * tables are always a function of the events. `streamVersion` is the event's position in its stream.
 */
export async function projectBillingEvent(tx: SqlClient, event: BillingEvent, streamVersion: number): Promise<void> {
  switch (event.type) {
    case 'PaymentRecorded': {
      const d = event.data;
      await tx.query(
        `insert into subscription_payments (id, subscription_id, user_id, amount, currency, platform_id, uuid, transaction_id, invoice_id, source, grants_access, created_at)
         values ($1, $2, $3, $4::numeric, $5, $6, $7, $8, $9, $10, $11, $12)`,
        [eventIdFor('subscription-payment', d.paymentId), d.subscriptionId, d.userId, d.amount, d.currency, CLOUDPAYMENTS_PLATFORM_ID, d.uuid, d.paymentId, d.invoiceId, d.source, d.grantsAccess ?? true, d.at],
      );
      await tx.query(
        `insert into payment_history (payment_id, user_id, at, amount, currency, plan_code, status, card_last_four)
         values ($1, $2, $3, $4::numeric, $5, $6, 'paid', $7)`,
        [d.paymentId, d.userId, d.at, d.amount, d.currency, d.planCode, d.cardLastFour ?? null],
      );
      return;
    }
    case 'SubscriptionStarted': {
      const d = event.data;
      await tx.query(
        `insert into subscriptions (id, user_id, subscription_plan_id, status_id, starts_at, ends_at, external_id, created_at, updated_at, stream_version)
         values ($1, $2, ${planId('$3')}, $4, $5, $6, $7, $8, $8, $9)`,
        [d.subscriptionId, d.userId, d.planCode, STATUS_ID.active, d.startsAt, d.endsAt, d.externalId, d.at, streamVersion],
      );
      return;
    }
    case 'SubscriptionExtended': {
      const d = event.data;
      await tx.query(
        `update subscriptions set ends_at = $2, subscription_plan_id = ${planId('$3')}, external_id = $4, status_id = $5, updated_at = $6, stream_version = $7,
           grace_until = null, failed_charges = 0
         where id = $1`,
        [d.subscriptionId, d.endsAt, d.planCode, d.externalId, STATUS_ID.active, d.at, streamVersion],
      );
      return;
    }
    case 'SubscriptionCancelled': {
      const d = event.data;
      await tx.query('update subscriptions set status_id = $2, updated_at = $3, stream_version = $4, external_id = coalesce($5, external_id) where id = $1', [
        d.subscriptionId,
        STATUS_ID.cancelled,
        d.at,
        streamVersion,
        d.externalId ?? null,
      ]);
      return;
    }
    case 'ChargeFailed': {
      const d = event.data;
      await tx.query(
        `insert into payment_history (payment_id, user_id, at, amount, currency, plan_code, status, card_last_four)
         values ($1, $2, $3, $4::numeric, $5, $6, 'failed', $7)`,
        [d.paymentId, d.userId, d.at, d.amount, d.currency, d.planCode, d.cardLastFour ?? null],
      );
      if (d.subscriptionId) {
        await tx.query('update subscriptions set status_id = $2, grace_until = $3, failed_charges = $4, updated_at = $5, stream_version = $6 where id = $1', [
          d.subscriptionId,
          STATUS_ID.past_due,
          d.graceUntil,
          d.attempt,
          d.at,
          streamVersion,
        ]);
      }
      return;
    }
    case 'ReceiptIssued': {
      // The history links a payment's own receipt; a refund's (IncomeReturn) is kept in the event only.
      const d = event.data;
      if (d.receiptType === 'Income') await tx.query('update payment_history set receipt_url = $2 where payment_id = $1', [d.paymentId, d.url]);
      return;
    }
    case 'PaymentRefunded': {
      const d = event.data;
      await tx.query(`update payment_history set status = 'refunded' where payment_id = $1`, [d.paymentId]);
      if (d.subscriptionId && d.endsAt) {
        await tx.query('update subscriptions set ends_at = $2, updated_at = $3, stream_version = $4 where id = $1', [d.subscriptionId, d.endsAt, d.at, streamVersion]);
      }
      return;
    }
    case 'SubscriptionResumed': {
      const d = event.data;
      await tx.query('update subscriptions set status_id = $2, external_id = $3, updated_at = $4, stream_version = $5 where id = $1', [d.subscriptionId, STATUS_ID.active, d.externalId, d.at, streamVersion]);
      return;
    }
    case 'SubscriptionReconciled': {
      const d = event.data;
      await tx.query('update subscriptions set status_id = $2, ends_at = $3, updated_at = $4, stream_version = $5, external_id = coalesce($6, external_id) where id = $1', [
        d.subscriptionId,
        STATUS_ID[d.status],
        d.endsAt,
        d.at,
        streamVersion,
        d.externalId ?? null,
      ]);
      return;
    }
    case 'SubscriptionRemoved':
      await tx.query('delete from subscriptions where id = $1', [event.data.subscriptionId]);
      return;
    case 'PaymentUnattributed': {
      const d = event.data;
      await tx.query(
        `insert into unattributed_payments (transaction_id, account_id, invoice_id, amount, currency, reason, created_at)
         values ($1, $2, $3, $4, $5, $6, $7)`,
        [d.paymentId, d.accountId, d.invoiceId, d.amount, d.currency, d.reason, d.at],
      );
      return;
    }
  }
}

/** The read-model tables the projection owns (truncated by the rebuild). */
export const PROJECTED_TABLES = ['subscriptions', 'subscription_payments', 'unattributed_payments', 'payment_history'] as const;

/** Events `projectBillingEvents` applies in set form; a batch with any other type is applied one by one. */
const SET_PROJECTED = new Set<BillingEvent['type']>(['PaymentRecorded', 'SubscriptionStarted', 'SubscriptionExtended']);

/**
 * The same tables as `projectBillingEvent` applied to each event in order (the reference: the rebuild uses it),
 * in a few statements for a batch of payments (the Pay webhooks' group commit): the subscriptions started, the
 * payments and their history rows as one insert each, then each extended subscription updated once to its last
 * extension (an extension overwrites every column it sets, so the last one is what the sequence leaves). The
 * order is safe because a batch of these only inserts new rows and updates subscriptions that exist or are
 * started in it; any other event type and the batch goes one event at a time.
 */
export async function projectBillingEvents(tx: SqlClient, events: { event: BillingEvent; streamVersion: number }[]): Promise<void> {
  if (!events.every(({ event }) => SET_PROJECTED.has(event.type))) {
    for (const { event, streamVersion } of events) await projectBillingEvent(tx, event, streamVersion);
    return;
  }
  const started = events.flatMap(({ event: e, streamVersion }) => (e.type === 'SubscriptionStarted' ? [{ ...e.data, streamVersion }] : []));
  const paid = events.flatMap(({ event: e }) => (e.type === 'PaymentRecorded' ? [{ ...e.data, id: eventIdFor('subscription-payment', e.data.paymentId) }] : []));
  const extended = new Map(events.flatMap(({ event: e, streamVersion }) => (e.type === 'SubscriptionExtended' ? [[e.data.subscriptionId, { ...e.data, streamVersion }] as const] : [])));
  if (started.length) {
    await tx.query(
      `insert into subscriptions (id, user_id, subscription_plan_id, status_id, starts_at, ends_at, external_id, created_at, updated_at, stream_version)
       select r."subscriptionId", r."userId", ${planId('r."planCode"')}, $2, r."startsAt", r."endsAt", r."externalId", r.at, r.at, r."streamVersion"
       from jsonb_to_recordset($1::jsonb) as r("subscriptionId" uuid, "userId" text, "planCode" text, "startsAt" timestamptz, "endsAt" timestamptz, "externalId" text, at timestamptz, "streamVersion" bigint)`,
      [JSON.stringify(started), STATUS_ID.active],
    );
  }
  if (paid.length) {
    const rows = JSON.stringify(paid.map((d) => ({ ...d, grantsAccess: d.grantsAccess ?? true, cardLastFour: d.cardLastFour ?? null })));
    // One statement for both tables: the history row of each payment beside its payment row.
    await tx.query(
      `with r as (
         select * from jsonb_to_recordset($1::jsonb) as r(id uuid, "subscriptionId" uuid, "userId" text, amount numeric, currency text, uuid text, "paymentId" text,
           "invoiceId" text, source text, "grantsAccess" boolean, at timestamptz, "planCode" text, "cardLastFour" text)
       ), payments as (
         insert into subscription_payments (id, subscription_id, user_id, amount, currency, platform_id, uuid, transaction_id, invoice_id, source, grants_access, created_at)
         select id, "subscriptionId", "userId", amount, currency, $2, uuid, "paymentId", "invoiceId", source, "grantsAccess", at from r
       )
       insert into payment_history (payment_id, user_id, at, amount, currency, plan_code, status, card_last_four)
       select "paymentId", "userId", at, amount, currency, "planCode", 'paid', "cardLastFour" from r`,
      [rows, CLOUDPAYMENTS_PLATFORM_ID],
    );
  }
  if (extended.size) {
    await tx.query(
      `update subscriptions s set ends_at = r."endsAt", subscription_plan_id = ${planId('r."planCode"')}, external_id = r."externalId", status_id = $2, updated_at = r.at,
         stream_version = r."streamVersion", grace_until = null, failed_charges = 0
       from jsonb_to_recordset($1::jsonb) as r("subscriptionId" uuid, "endsAt" timestamptz, "planCode" text, "externalId" text, at timestamptz, "streamVersion" bigint)
       where s.id = r."subscriptionId"`,
      [JSON.stringify([...extended.values()]), STATUS_ID.active],
    );
  }
}
