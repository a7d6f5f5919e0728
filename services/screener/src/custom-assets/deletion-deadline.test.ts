/**
 * A custom asset's deletion whose last step (the delete transaction) does not commit, here past the request's
 * deadline behind a rates write: the request answers that nothing was done, so the asset must be shown again, not
 * left hidden for the finish-deletions job to delete (a review found it was).
 */
import { runWithContext } from '@invest/platform/context/request-context';
import { type Db, openDatabase } from '@invest/platform/db/database';
import { ServiceError } from '@invest/platform/rpc/service-error';
import { blockedBy, createTestDatabase, eventually } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../migrations/index.js';
import { RATES_WRITE_LOCK } from '../rates/rates-updated.recorder.js';
import { CustomAssetsService } from './custom-assets.service.js';

describe('a deletion whose final transaction is refused', () => {
  let db: Db;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const t = await createTestDatabase('scr_del_deadline');
    drop = t.drop;
    db = await openDatabase({ url: t.url, migrations });
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
  });

  it('answers "not_done" only when the asset is shown again (not left hidden for the job to delete)', async () => {
    // Portfolios answers "no uses" at once; meanwhile (between the hide and the delete) a rates write (a
    // get:assetRates run) takes the rate-writes lock and holds it until the deletion's final transaction, begun in
    // time, waits for it and the request's deadline has passed: that transaction reaches its commit past the deadline.
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let rates: Promise<void> | undefined;
    let ratesPid = 0;
    const service = new CustomAssetsService(db, () => '2024-03-01', {
      usesOf: async () => {
        let locked!: () => void;
        const holding = new Promise<void>((r) => (locked = r));
        // A job's transaction: no request deadline of its own.
        rates = runWithContext({ correlationId: 'rates-job' }, () =>
          db.transaction(async (tx) => {
            await tx.query('select pg_advisory_xact_lock($1::bigint)', [RATES_WRITE_LOCK.toString()]);
            ratesPid = (await tx.query<{ pid: number }>('select pg_backend_pid() as pid'))[0]!.pid;
            locked();
            await released;
          }),
        );
        await holding;
        return [];
      },
    });
    const { data } = await service.create('u1', { name: 'Garage', currency: 'RUB', price: 7 });

    const deadline = Date.now() + 2_000;
    const deleting = runWithContext({ correlationId: 'deletion', userId: 'u1', deadline }, () =>
      service.delete('u1', { id: data.id }).then(
        () => 'deleted',
        (e: unknown) => e,
      ),
    );
    await eventually(async () => ratesPid, (pid) => pid > 0, 'the rates write to hold its lock');
    const waited = await blockedBy(db, ratesPid, deleting);
    await new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now() + 50)));
    release();
    const outcome = await deleting;
    expect(waited, "the deletion's final transaction waited for the rates lock").toBe(true);
    await rates;
    expect(rates).toBeDefined();
    // The request answered: nothing was done.
    expect(outcome).toBeInstanceOf(ServiceError);
    expect(outcome).toMatchObject({ code: 'unavailable', extra: { outcome: 'not_done' } });

    // So the asset must be the owner's as before. It is hidden instead…
    const listed = (await service.list('u1')).data.map((a) => a.id);
    const afterwards = await service.finishPendingDeletions(new Date(Date.now() + 120_000));
    // …and the job (a minute later; simulated by its cut-off) deletes it.
    expect({ listed, jobDeleted: afterwards.deleted }).toEqual({ listed: [data.id], jobDeleted: 0 });
  });
});
