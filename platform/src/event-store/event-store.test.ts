import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { type Db, openDatabase } from '../db/database.js';
import { createTestDatabase } from '../testing/test-env.js';
import { appendToStream, ConcurrencyError, EventIdConflictError, readAll, readStream, START } from './event-store.js';
import { eventStoreMigration } from './event-store.migration.js';

describe('event store (contract)', () => {
  let db: Db;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const t = await createTestDatabase('es');
    drop = t.drop;
    db = await openDatabase({ url: t.url, migrations: [eventStoreMigration] });
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
  });

  it('creates a stream with no_stream and appends at the expected version', async () => {
    const stream = `account-${randomUUID()}`;
    const r1 = await db.transaction((tx) => appendToStream(tx, stream, [{ type: 'Opened', data: { n: 1 } }], 'no_stream'));
    expect(r1).toEqual({ nextExpectedVersion: 1, alreadyApplied: false });
    const r2 = await db.transaction((tx) =>
      appendToStream(tx, stream, [{ type: 'Deposited', data: { n: 2 } }, { type: 'Deposited', data: { n: 3 } }], 1),
    );
    expect(r2.nextExpectedVersion).toBe(3);
    const events = await readStream(db, stream);
    expect(events.map((e) => [e.streamPosition, e.type, e.data])).toEqual([
      [1, 'Opened', { n: 1 }],
      [2, 'Deposited', { n: 2 }],
      [3, 'Deposited', { n: 3 }],
    ]);
  });

  it('rejects a stale expected version and no_stream on an existing stream, writing nothing', async () => {
    const stream = `account-${randomUUID()}`;
    await db.transaction((tx) => appendToStream(tx, stream, [{ type: 'Opened', data: {} }], 'no_stream'));
    await db.transaction((tx) => appendToStream(tx, stream, [{ type: 'Renamed', data: {} }], 1));
    await expect(db.transaction((tx) => appendToStream(tx, stream, [{ type: 'Renamed', data: {} }], 1))).rejects.toBeInstanceOf(
      ConcurrencyError,
    );
    await expect(db.transaction((tx) => appendToStream(tx, stream, [{ type: 'Opened', data: {} }], 'no_stream'))).rejects.toMatchObject({
      name: 'ConcurrencyError',
      actual: 2,
    });
    expect(await readStream(db, stream)).toHaveLength(2);
  });

  it('lets exactly one of two concurrent writers at the same version win', async () => {
    const stream = `account-${randomUUID()}`;
    await db.transaction((tx) => appendToStream(tx, stream, [{ type: 'Opened', data: {} }], 'no_stream'));
    const results = await Promise.allSettled(
      [1, 2].map((i) => db.transaction((tx) => appendToStream(tx, stream, [{ type: 'Deposited', data: { i } }], 1))),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).toBeInstanceOf(ConcurrencyError);
    expect(await readStream(db, stream)).toHaveLength(2);
  });

  it('treats a retried command (same event ids) as a no-op', async () => {
    const stream = `payment-${randomUUID()}`;
    const id = randomUUID();
    const first = await db.transaction((tx) => appendToStream(tx, stream, [{ id, type: 'PaymentRecorded', data: { amount: 299 } }], 'no_stream'));
    const retry = await db.transaction((tx) => appendToStream(tx, stream, [{ id, type: 'PaymentRecorded', data: { amount: 299 } }], 'no_stream'));
    expect(first.alreadyApplied).toBe(false);
    expect(retry).toEqual({ nextExpectedVersion: 1, alreadyApplied: true });
    expect(await readStream(db, stream)).toHaveLength(1);
  });

  it('is idempotent when two retries of the same command race', async () => {
    const stream = `payment-${randomUUID()}`;
    const id = randomUUID();
    const results = await Promise.all(
      [1, 2].map(() =>
        db.transaction((tx) => appendToStream(tx, stream, [{ id, type: 'PaymentRecorded', data: {} }], 'any')).catch((e: unknown) => e as Error),
      ),
    );
    // One writes; the other either sees it already applied or loses the position race (ConcurrencyError) — never a second event.
    expect(results.filter((r) => !(r instanceof Error) && !r.alreadyApplied)).toHaveLength(1);
    expect(await readStream(db, stream)).toHaveLength(1);
  });

  it('keeps the caller transaction usable when a concurrent retry of the same command commits first', async () => {
    await db.query('create table if not exists after_append (stream text not null)');
    const stream = `payment-${randomUUID()}`;
    const id = randomUUID();
    let releaseFirst!: () => void;
    const firstMayCommit = new Promise<void>((r) => (releaseFirst = r));
    let firstInserted!: () => void;
    const firstHasInserted = new Promise<void>((r) => (firstInserted = r));
    const first = db.transaction(async (tx) => {
      const r = await appendToStream(tx, stream, [{ id, type: 'PaymentRecorded', data: {} }], 'any');
      firstInserted();
      await firstMayCommit;
      return r;
    });
    await firstHasInserted;
    // The retry finds no stored id (the first is not committed), inserts, and waits on the first's unique event id.
    const retry = db.transaction(async (tx) => {
      const r = await appendToStream(tx, stream, [{ id, type: 'PaymentRecorded', data: {} }], 'any');
      await tx.query('insert into after_append (stream) values ($1)', [stream]);
      return r;
    });
    const waiting = async () =>
      (
        await db.query(
          `select 1 from pg_stat_activity
           where datname = current_database() and wait_event_type = 'Lock' and query like 'insert into es_events%'`,
        )
      ).length;
    await expect.poll(waiting, { timeout: 10_000, interval: 20 }).toBe(1);
    releaseFirst();

    expect(await first).toEqual({ nextExpectedVersion: 1, alreadyApplied: false });
    // The duplicate key error was contained: the retry's transaction went on, wrote and committed.
    expect(await retry).toEqual({ nextExpectedVersion: 1, alreadyApplied: true });
    expect(await db.query('select stream from after_append where stream = $1', [stream])).toEqual([{ stream }]);
    expect(await readStream(db, stream)).toHaveLength(1);
  });

  it('refuses an event id already used in another stream', async () => {
    const id = randomUUID();
    await db.transaction((tx) => appendToStream(tx, `a-${randomUUID()}`, [{ id, type: 'X', data: {} }]));
    await expect(db.transaction((tx) => appendToStream(tx, `b-${randomUUID()}`, [{ id, type: 'X', data: {} }]))).rejects.toBeInstanceOf(
      EventIdConflictError,
    );
  });

  it('reads streams and the global log in numeric order past nine events (positions are read as text)', async () => {
    const stream = `long-${randomUUID()}`;
    for (let i = 1; i <= 12; i++) await db.transaction((tx) => appendToStream(tx, stream, [{ type: 'N', data: { i } }], i - 1));
    const events = await readStream(db, stream);
    expect(events.map((e) => e.streamPosition)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(events.at(-1)!.data).toEqual({ i: 12 });
    const mine = (await readAll(db, START, 10_000)).filter((e) => e.streamName === stream);
    expect(mine.map((e) => (e.data as { i: number }).i)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });

  it('with streamRead (the caller read the stream), still refuses a stale version and an id used elsewhere, on the unique keys', async () => {
    const stream = `account-${randomUUID()}`;
    await db.transaction((tx) => appendToStream(tx, stream, [{ type: 'Opened', data: {} }, { type: 'Renamed', data: {} }], 'no_stream'));
    await expect(db.transaction((tx) => appendToStream(tx, stream, [{ type: 'Renamed', data: {} }], 1, { streamRead: true }))).rejects.toMatchObject({
      name: 'ConcurrencyError',
      actual: 2,
    });
    const id = randomUUID();
    await db.transaction((tx) => appendToStream(tx, `elsewhere-${randomUUID()}`, [{ id, type: 'X', data: {} }]));
    await expect(db.transaction((tx) => appendToStream(tx, stream, [{ id, type: 'X', data: {} }], 2, { streamRead: true }))).rejects.toBeInstanceOf(
      EventIdConflictError,
    );
    const ok = await db.transaction((tx) => appendToStream(tx, stream, [{ type: 'Closed', data: {} }], 2, { streamRead: true }));
    expect(ok).toEqual({ nextExpectedVersion: 3, alreadyApplied: false });
    expect((await readStream(db, stream)).map((e) => e.type)).toEqual(['Opened', 'Renamed', 'Closed']);
  });

  it('never lets a global reader skip an event whose transaction commits late', async () => {
    const stream = `late-${randomUUID()}`;
    let releaseSlow!: () => void;
    const slowMayCommit = new Promise<void>((r) => (releaseSlow = r));
    let slowInserted!: () => void;
    const slowHasInserted = new Promise<void>((r) => (slowInserted = r));

    // The slow transaction appends first (smaller global position) but commits last.
    const slow = db.transaction(async (tx) => {
      await appendToStream(tx, stream, [{ type: 'Slow', data: {} }]);
      slowInserted();
      await slowMayCommit;
    });
    await slowHasInserted;
    await db.transaction((tx) => appendToStream(tx, `${stream}-fast`, [{ type: 'Fast', data: {} }]));

    // Read everything committed so far and remember where the reader stands.
    let checkpoint = START;
    const seen: string[] = [];
    const drain = async () => {
      for (;;) {
        const batch = await readAll(db, checkpoint, 1000);
        if (!batch.length) return;
        for (const e of batch) if (e.streamName.startsWith(stream)) seen.push(e.type);
        const last = batch[batch.length - 1]!;
        checkpoint = { transactionId: last.transactionId, globalPosition: last.globalPosition };
      }
    };
    await drain();
    // The fast event is committed but must wait behind the still-running slow transaction.
    expect(seen).toEqual([]);

    releaseSlow();
    await slow;
    // Other transactions of this database (autovacuum, say) may still hold the horizon back for a moment:
    // wait for it, bounded. A reader that had skipped the slow event would never see it.
    await expect
      .poll(async () => {
        await drain();
        return [...seen].sort();
      }, { timeout: 30_000, interval: 50 })
      .toEqual(['Fast', 'Slow']);
  });

  it('is not held back by a long writing transaction in another database, and still never skips a late commit here', async () => {
    const other = await createTestDatabase('es_other');
    const elsewhere = new pg.Client({ connectionString: other.url });
    await elsewhere.connect();
    try {
      // A writing transaction in another database of the same server, open for the whole test (its xid is
      // older than every event below, so a cluster-wide horizon would hold them all back).
      await elsewhere.query('begin');
      await elsewhere.query('select pg_current_xact_id()');

      const stream = `elsewhere-${randomUUID()}`;
      let checkpoint = START;
      const seen: string[] = [];
      const drain = async () => {
        for (;;) {
          const batch = await readAll(db, checkpoint, 1000);
          if (!batch.length) return [...seen].sort();
          for (const e of batch) if (e.streamName.startsWith(stream)) seen.push(e.type);
          const last = batch[batch.length - 1]!;
          checkpoint = { transactionId: last.transactionId, globalPosition: last.globalPosition };
        }
      };

      await db.transaction((tx) => appendToStream(tx, stream, [{ type: 'Before', data: {} }]));
      await expect.poll(drain, { timeout: 10_000, interval: 50 }).toEqual(['Before']);

      let releaseSlow!: () => void;
      const slowMayCommit = new Promise<void>((r) => (releaseSlow = r));
      let slowInserted!: () => void;
      const slowHasInserted = new Promise<void>((r) => (slowInserted = r));
      const slow = db.transaction(async (tx) => {
        await appendToStream(tx, `${stream}-slow`, [{ type: 'Slow', data: {} }]);
        slowInserted();
        await slowMayCommit;
      });
      await slowHasInserted;
      await db.transaction((tx) => appendToStream(tx, `${stream}-fast`, [{ type: 'Fast', data: {} }]));
      // The running transaction of THIS database still holds the committed fast event back.
      expect(await drain()).toEqual(['Before']);

      releaseSlow();
      await slow;
      await expect.poll(drain, { timeout: 10_000, interval: 50 }).toEqual(['Before', 'Fast', 'Slow']);
      // The other database's transaction was open throughout.
      expect((await elsewhere.query<{ open: boolean }>("select pg_current_xact_id_if_assigned() is not null as open")).rows).toEqual([{ open: true }]);
    } finally {
      await elsewhere.query('rollback').catch(() => undefined);
      await elsewhere.end();
      await other.drop();
    }
  });
});
