import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { Db, Tx } from '../db/database.js';
import { ServiceError } from '../rpc/service-error.js';
import { deciderSpecification } from '../testing/decider-specification.js';
import { useTestDatabase } from '../testing/use-test-database.js';
import { type Decider, eventIdFor, handleCommand, uuidV5 } from './command-handling.js';
import { ConcurrencyError, readStream } from './event-store.js';
import { eventStoreMigration } from './event-store.migration.js';

// A tiny prepaid account, the shape billing will have: top-ups carry the payment provider's id.
type AccountEvent =
  | { type: 'AccountOpened'; data: { currency: string } }
  | { type: 'ToppedUp'; data: { paymentId: string; amount: number } }
  | { type: 'Charged'; data: { amount: number } };
type AccountCommand =
  | { type: 'Open'; currency: string }
  | { type: 'TopUp'; paymentId: string; amount: number }
  | { type: 'Charge'; amount: number };
interface Account {
  open: boolean;
  balance: number;
}

const account: Decider<Account, AccountCommand, AccountEvent> = {
  initialState: () => ({ open: false, balance: 0 }),
  evolve(state, event) {
    switch (event.type) {
      case 'AccountOpened':
        return { ...state, open: true };
      case 'ToppedUp':
        return { ...state, balance: state.balance + event.data.amount };
      case 'Charged':
        return { ...state, balance: state.balance - event.data.amount };
    }
  },
  decide(command, state) {
    if (command.type === 'Open') {
      if (state.open) throw ServiceError.conflict('The account is already open.');
      return { type: 'AccountOpened', data: { currency: command.currency } };
    }
    if (!state.open) throw ServiceError.notFound('Account');
    if (command.type === 'TopUp') return { type: 'ToppedUp', data: { paymentId: command.paymentId, amount: command.amount } };
    if (command.amount === 0) return [];
    if (command.amount > state.balance) throw ServiceError.conflict('Insufficient funds.');
    return { type: 'Charged', data: { amount: command.amount } };
  },
};

const opened: AccountEvent = { type: 'AccountOpened', data: { currency: 'RUB' } };
const toppedUp = (amount: number, paymentId = 'p1'): AccountEvent => ({ type: 'ToppedUp', data: { paymentId, amount } });

describe('deciderSpecification (given / when / then, no database)', () => {
  const spec = deciderSpecification(account);

  it('asserts the decided events', () => {
    spec.given().when({ type: 'Open', currency: 'RUB' }).then(opened);
    spec.given([opened, toppedUp(100)]).when({ type: 'Charge', amount: 30 }).then([{ type: 'Charged', data: { amount: 30 } }]);
    spec.given(opened).when({ type: 'Charge', amount: 0 }).thenNothingHappened();
  });

  it('asserts the domain error', () => {
    spec.given([opened, toppedUp(10)]).when({ type: 'Charge', amount: 30 }).thenThrows(ServiceError);
    spec.given([opened, toppedUp(10)]).when({ type: 'Charge', amount: 30 }).thenThrows('Insufficient funds.');
    spec.given(opened).when({ type: 'Open', currency: 'USD' }).thenThrows(expect.objectContaining({ code: 'conflict' }));
  });

  it('fails the test when the decider does something else', () => {
    expect(() => spec.given([opened, toppedUp(100)]).when({ type: 'Charge', amount: 30 }).then([{ type: 'Charged', data: { amount: 31 } }])).toThrow();
    expect(() => spec.given(opened).when({ type: 'Charge', amount: 5 }).thenNothingHappened()).toThrow();
    expect(() => spec.given([opened, toppedUp(100)]).when({ type: 'Charge', amount: 30 }).thenThrows()).toThrow();
    expect(() => spec.given().when({ type: 'Charge', amount: 30 }).thenThrows('Insufficient funds.')).toThrow();
  });
});

describe('eventIdFor', () => {
  it('is an RFC 4122 version 5 UUID, stable for the same parts', () => {
    // The RFC's example: "www.example.com" in the DNS namespace.
    expect(uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
    expect(eventIdFor('ToppedUp', 'pay-1')).toBe(eventIdFor('ToppedUp', 'pay-1'));
    expect(eventIdFor('ToppedUp', 'pay-1')).not.toBe(eventIdFor('ToppedUp', 'pay-2'));
    // Parts are kept apart: ('a', 'bc') and ('ab', 'c') are different things.
    expect(eventIdFor('a', 'bc')).not.toBe(eventIdFor('ab', 'c'));
  });
});

describe('handleCommand (real Postgres)', () => {
  let db!: Db;
  useTestDatabase('cmd', [eventStoreMigration], (d) => (db = d));

  /** The account decider, counting how often `decide` runs. */
  const counted = () => {
    const calls = { decide: 0 };
    const decider: Decider<Account, AccountCommand, AccountEvent> = {
      ...account,
      decide: (c, s) => {
        calls.decide += 1;
        return account.decide(c, s);
      },
    };
    return { decider, calls };
  };
  const run = (stream: string, command: AccountCommand, opts?: Parameters<typeof handleCommand>[4]) =>
    db.transaction((tx) => handleCommand(tx, stream, command, account, opts));
  const newAccount = async (balance: number) => {
    const stream = `account-${randomUUID()}`;
    await run(stream, { type: 'Open', currency: 'RUB' });
    if (balance) await run(stream, { type: 'TopUp', paymentId: 'seed', amount: balance });
    return stream;
  };

  /** Runs `fn` in a transaction that stays open (uncommitted) until `commit()`. */
  const openTransaction = async (fn: (tx: Tx) => Promise<unknown>) => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let ready!: () => void;
    const isReady = new Promise<void>((r) => (ready = r));
    const done = db.transaction(async (tx) => {
      await fn(tx);
      ready();
      await released;
    });
    await Promise.race([isReady, done]);
    return {
      commit: async () => {
        release();
        await done;
      },
    };
  };
  /** Resolves once some session of the test database waits on a row or index lock. */
  const someoneWaitsOnALock = async () => {
    for (let i = 0; i < 500; i++) {
      const [row] = await db.query<{ n: number }>(
        "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
      );
      if (row!.n > 0) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('no session ever waited on a lock');
  };
  /**
   * Two real transactions racing on one stream: `first` appends and stays uncommitted; `second` reads the
   * stream without `first`'s events, decides, and its append waits on `first`'s index entry; then `first`
   * commits, so `second` meets a version conflict after having decided.
   */
  const race = async <T>(stream: string, first: AccountCommand, second: (tx: Tx) => Promise<T>): Promise<T> => {
    const a = await openTransaction((tx) => handleCommand(tx, stream, first, account));
    const b = db.transaction(second);
    b.catch(() => undefined);
    await someoneWaitsOnALock();
    await a.commit();
    return b;
  };

  it('reads, folds, decides and appends at the version it read', async () => {
    const stream = await newAccount(100);
    const result = await run(stream, { type: 'Charge', amount: 30 });
    expect(result).toEqual({ newState: { open: true, balance: 70 }, newEvents: [{ type: 'Charged', data: { amount: 30 } }], nextExpectedVersion: 3, alreadyApplied: false });
    expect((await readStream(db, stream)).map((e) => [e.streamPosition, e.type])).toEqual([
      [1, 'AccountOpened'],
      [2, 'ToppedUp'],
      [3, 'Charged'],
    ]);
  });

  it('writes nothing when the decider refuses or decides nothing', async () => {
    const stream = await newAccount(10);
    await expect(run(stream, { type: 'Charge', amount: 30 })).rejects.toThrow('Insufficient funds.');
    expect(await run(stream, { type: 'Charge', amount: 0 })).toMatchObject({ newEvents: [], nextExpectedVersion: 2, alreadyApplied: false });
    expect(await readStream(db, stream)).toHaveLength(2);
  });

  it('makes a retried command with deterministic event ids a no-op', async () => {
    const stream = await newAccount(0);
    const { decider, calls } = counted();
    const topUp = { type: 'TopUp', paymentId: 'pay-42', amount: 50 } as const;
    const opts = { eventIds: [eventIdFor('ToppedUp', topUp.paymentId)] };
    const first = await db.transaction((tx) => handleCommand(tx, stream, topUp, decider, opts));
    const retry = await db.transaction((tx) => handleCommand(tx, stream, topUp, decider, opts));
    expect(first).toMatchObject({ alreadyApplied: false, nextExpectedVersion: 2, newState: { balance: 50 } });
    expect(retry).toEqual({ newState: { open: true, balance: 50 }, newEvents: [], nextExpectedVersion: 2, alreadyApplied: true });
    expect(calls.decide).toBe(1);
    const events = await readStream(db, stream);
    expect(events).toHaveLength(2);
    expect(events[1]!.id).toBe(opts.eventIds[0]);
  });

  it('after a version conflict, re-reads in the same transaction and decides on the state the winner left', async () => {
    const stream = await newAccount(100);
    const { decider, calls } = counted();
    // The winner charges 70 while this command, having read a balance of 100, charges 50.
    const loser = race(stream, { type: 'Charge', amount: 70 }, (tx) => handleCommand(tx, stream, { type: 'Charge', amount: 50 }, decider));
    await expect(loser).rejects.toThrow('Insufficient funds.');
    expect(calls.decide).toBe(2);
    expect((await readStream(db, stream)).map((e) => e.data)).toEqual([{ currency: 'RUB' }, { paymentId: 'seed', amount: 100 }, { amount: 70 }]);
  });

  it('appends after the winner when the decision still holds, and the transaction stays usable', async () => {
    const stream = await newAccount(100);
    const { decider, calls } = counted();
    const result = await race(stream, { type: 'Charge', amount: 20 }, async (tx) => {
      const r = await handleCommand(tx, stream, { type: 'Charge', amount: 50 }, decider);
      const [row] = await tx.query<{ n: number }>('select count(*)::int as n from es_events where stream_name = $1', [stream]);
      return { r, seenInTx: row!.n };
    });
    expect(calls.decide).toBe(2);
    expect(result.r).toMatchObject({ newState: { balance: 30 }, nextExpectedVersion: 4, alreadyApplied: false });
    expect(result.seenInTx).toBe(4);
    expect((await readStream(db, stream)).map((e) => [e.streamPosition, e.data])).toEqual([
      [1, { currency: 'RUB' }],
      [2, { paymentId: 'seed', amount: 100 }],
      [3, { amount: 20 }],
      [4, { amount: 50 }],
    ]);
  });

  it('lets the ConcurrencyError escape when the retries are used up', async () => {
    const stream = await newAccount(100);
    const loser = race(stream, { type: 'Charge', amount: 20 }, (tx) => handleCommand(tx, stream, { type: 'Charge', amount: 50 }, account, { retries: 0 }));
    await expect(loser).rejects.toBeInstanceOf(ConcurrencyError);
    expect(await readStream(db, stream)).toHaveLength(3);
  });

  it('does not retry under REPEATABLE READ, where a re-read would see the same stale snapshot', async () => {
    const stream = await newAccount(100);
    const { decider, calls } = counted();
    const loser = race(stream, { type: 'Charge', amount: 20 }, async (tx) => {
      await tx.query('set transaction isolation level repeatable read');
      return handleCommand(tx, stream, { type: 'Charge', amount: 50 }, decider);
    });
    await expect(loser).rejects.toBeInstanceOf(ConcurrencyError);
    expect(calls.decide).toBe(1);
  });

  it('answers a concurrent duplicate of the same command as already applied', async () => {
    const stream = await newAccount(0);
    const topUp = { type: 'TopUp', paymentId: 'pay-7', amount: 40 } as const;
    const eventIds = [eventIdFor('ToppedUp', topUp.paymentId)];
    const a = await openTransaction((tx) => handleCommand(tx, stream, topUp, account, { eventIds }));
    const b = db.transaction((tx) => handleCommand(tx, stream, topUp, account, { eventIds }));
    b.catch(() => undefined);
    await someoneWaitsOnALock();
    await a.commit();
    expect(await b).toMatchObject({ alreadyApplied: true, newEvents: [], newState: { balance: 40 } });
    expect(await readStream(db, stream)).toHaveLength(2);
  });

  it("refuses at once, without retrying, when the stream moved past the caller's expected version", async () => {
    const stream = await newAccount(100);
    const { decider, calls } = counted();
    await expect(
      db.transaction((tx) => handleCommand(tx, stream, { type: 'Charge', amount: 5 }, decider, { expectedVersion: 1 })),
    ).rejects.toMatchObject({ name: 'ConcurrencyError', expected: 1, actual: 2 });
    expect(calls.decide).toBe(0);
    expect(await run(stream, { type: 'Charge', amount: 5 }, { expectedVersion: 2 })).toMatchObject({ nextExpectedVersion: 3 });
  });
});
