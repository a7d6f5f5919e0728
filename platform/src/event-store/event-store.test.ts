import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
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

  it('reads a stream and the global log in numeric order past 9, 99 (positions are selected as text)', async () => {
    const stream = `counter-${randomUUID()}`;
    const before = await readAll(db, START, 100_000);
    const from = before.length ? { transactionId: before.at(-1)!.transactionId, globalPosition: before.at(-1)!.globalPosition } : START;
    for (let i = 1; i <= 105; i += 15) {
      const n = Math.min(15, 106 - i);
      await db.transaction((tx) => appendToStream(tx, stream, Array.from({ length: n }, (_, k) => ({ type: 'Counted', data: { n: i + k } }))));
    }
    expect((await readStream(db, stream)).map((e) => e.streamPosition)).toEqual(Array.from({ length: 105 }, (_, k) => k + 1));
    // A limited global read never passes over an event: paging through it sees every one, in order. (Pages
    // can come back empty while another transaction on the server is still open: xmin is server-wide.)
    const seen: number[] = [];
    let at = from;
    const until = Date.now() + 20_000;
    while (seen.length < 105 && Date.now() < until) {
      const all = await readAll(db, at, 7);
      if (all.length === 0) {
        await new Promise((r) => setTimeout(r, 20));
        continue;
      }
      seen.push(...all.filter((e) => e.streamName === stream).map((e) => (e.data as { n: number }).n));
      at = { transactionId: all.at(-1)!.transactionId, globalPosition: all.at(-1)!.globalPosition };
    }
    expect(seen).toEqual(Array.from({ length: 105 }, (_, k) => k + 1));
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

  it('keeps the caller transaction usable and idempotent when two retries race', async () => {
    const stream = `payment-${randomUUID()}`;
    const id = randomUUID();
    const results = await Promise.all(
      [1, 2].map(() =>
        db.transaction(async (tx) => {
          const r = await appendToStream(tx, stream, [{ id, type: 'PaymentRecorded', data: {} }], 'any');
          await tx.query('select 1');
          return r;
        }).catch((e: unknown) => e as Error),
      ),
    );
    // One writes; the other either sees it already applied or loses the position race (ConcurrencyError) — never a second event.
    expect(results.filter((r) => !(r instanceof Error) && !r.alreadyApplied)).toHaveLength(1);
    expect(await readStream(db, stream)).toHaveLength(1);
  });

  it('refuses an event id already used in another stream', async () => {
    const id = randomUUID();
    await db.transaction((tx) => appendToStream(tx, `a-${randomUUID()}`, [{ id, type: 'X', data: {} }]));
    await expect(db.transaction((tx) => appendToStream(tx, `b-${randomUUID()}`, [{ id, type: 'X', data: {} }]))).rejects.toBeInstanceOf(
      EventIdConflictError,
    );
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
    await drain();
    expect(seen.sort()).toEqual(['Fast', 'Slow']);
  });
});
