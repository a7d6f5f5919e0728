/**
 * The Pay webhooks' group commit against a real Postgres: what a batch records is what one transaction per
 * command records (each payment once, a user's two payments in arrival order, the read models those of a
 * rebuild), and a batch that cannot commit leaves each command to the one-by-one path and its errors.
 */
import { appendToStream, type Db, EventIdConflictError, openDatabase, runWithContext, ServiceError } from '@invest/platform';
import { createTestDatabase } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../migrations/index.js';
import { DEFAULT_PRICES, planCatalog, planForPayment } from '../plans/plan-catalog.js';
import { upsertPlans } from '../plans/plan-rows.js';
import { BillingCommandBatches } from './billing-command-batch.js';
import { paymentEventIds, subscriptionIdFor } from './billing-commands.js';
import { rebuildReadModels } from './rebuild-read-models.js';
import type { BillingCommand } from './subscription.decider.js';

const plans = planCatalog(DEFAULT_PRICES);
let testDb: Awaited<ReturnType<typeof createTestDatabase>>;
let db: Db;

beforeAll(async () => {
  testDb = await createTestDatabase('billing_batch');
  db = await openDatabase({ url: testDb.url, migrations });
  await upsertPlans(db, plans);
});

afterAll(async () => {
  await db?.close();
  await testDb?.drop();
});

/** A Pay notification's command, as `BillingService.pay` makes it; a `subscriptionId` makes it a recurring charge. */
function payment(userId: string, transactionId: string, subscriptionId: string | null = null): BillingCommand {
  const bought = planForPayment(plans, '299.00', 'RUB')!;
  return {
    type: 'RecordPayment',
    source: 'webhook',
    userId,
    uuid: transactionId,
    payment: { transactionId, amount: '299.00', currency: 'RUB', invoiceId: null, externalId: subscriptionId, cardLastFour: '4242' },
    plan: bought.plan,
    share: bought.share,
    newSubscriptionId: subscriptionIdFor(transactionId),
    now: new Date(),
  };
}

const readModels = async () => ({
  subscriptions: await db.query('select * from subscriptions order by id'),
  payments: await db.query('select * from subscription_payments order by id'),
  history: await db.query('select * from payment_history order by payment_id'),
});

describe('BillingCommandBatches', () => {
  it('records each payment once, in arrival order per user, with the read models of a rebuild', async () => {
    const batches = new BillingCommandBatches(db);
    const users = Array.from({ length: 8 }, (_, i) => `batch-user-${i}`);
    // Each user: a first payment, its recurring charge (which extends it) and a repeat of the first, all at once.
    const runs = users.flatMap((u, i) => [
      batches.run(payment(u, `91000${i}`), paymentEventIds(`91000${i}`)),
      batches.run(payment(u, `92000${i}`, `sc_${u}`), paymentEventIds(`92000${i}`)),
      batches.run(payment(u, `91000${i}`), paymentEventIds(`91000${i}`)),
    ]);
    const results = await Promise.all(runs);

    for (const [i] of users.entries()) {
      const [first, recurring, repeat] = results.slice(i * 3, i * 3 + 3);
      expect(first!.newEvents.map((e) => e.type)).toEqual(['PaymentRecorded', 'SubscriptionStarted']);
      expect(recurring!.newEvents.map((e) => e.type)).toEqual(['PaymentRecorded', 'SubscriptionExtended']);
      expect(repeat!.newEvents).toEqual([]);
    }
    const [counts] = await db.query<{ recorded: string; payments: string; subscriptions: string }>(
      `select (select count(*) from es_events where type = 'PaymentRecorded')::text as recorded,
              (select count(*) from subscription_payments)::text as payments,
              (select count(*) from subscriptions)::text as subscriptions`,
    );
    expect(counts).toEqual({ recorded: '16', payments: '16', subscriptions: '8' });
    const [sub] = await db.query<{ months: number; external_id: string; stream_version: string }>(
      `select extract(month from age(ends_at, starts_at))::int as months, external_id, stream_version::text from subscriptions where user_id = $1`,
      [users[0]],
    );
    expect(sub).toEqual({ months: 2, external_id: `sc_${users[0]}`, stream_version: '4' });

    const batched = await readModels();
    await rebuildReadModels(db);
    expect(await readModels()).toEqual(batched);
  });

  it('a batch that cannot commit leaves each command to the one-by-one path', async () => {
    const batches = new BillingCommandBatches(db);
    // Recorded elsewhere already (an unattributed payment): the batch's insert fails on the event id.
    const [taken] = paymentEventIds('930001');
    await db.transaction((tx) => appendToStream(tx, 'billing-unattributed-930001', [{ id: taken!, type: 'PaymentUnattributed', data: {} }], 'any'));
    // The first two calls each start a batch at once; the next three wait and go together.
    const runs = ['930010', '930011', '930012', '930001', '930013'].map((tx, i) => batches.run(payment(`batch-fallback-${i}`, tx), paymentEventIds(tx)));
    const settled = await Promise.allSettled(runs);

    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((settled[3] as PromiseRejectedResult).reason).toBeInstanceOf(EventIdConflictError);
    const rows = await db.query<{ payment_id: string }>(`select data->>'paymentId' as payment_id from es_events where type = 'PaymentRecorded' and data->>'paymentId' like '9300%' order by 1`);
    expect(rows.map((r) => r.payment_id)).toEqual(['930010', '930011', '930012', '930013']);
  });

  it('a command whose request deadline passed while it waited is refused and records nothing; the others are recorded', async () => {
    const batches = new BillingCommandBatches(db);
    const late = runWithContext({ correlationId: 'late', deadline: Date.now() - 1_000 }, () => batches.run(payment('batch-late', '940001'), paymentEventIds('940001')));
    const onTime = batches.run(payment('batch-on-time', '940002'), paymentEventIds('940002'));
    await expect(late).rejects.toBeInstanceOf(ServiceError);
    expect((await onTime).newEvents.map((e) => e.type)).toEqual(['PaymentRecorded', 'SubscriptionStarted']);
    const rows = await db.query<{ payment_id: string }>(`select data->>'paymentId' as payment_id from es_events where type = 'PaymentRecorded' and data->>'paymentId' like '9400%'`);
    expect(rows.map((r) => r.payment_id)).toEqual(['940002']);
  });
});
