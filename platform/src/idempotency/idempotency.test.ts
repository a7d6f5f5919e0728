import { beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode, RequestOutcome } from '@invest/contracts';
import { deadlinePassed } from '../context/deadline.js';
import { runWithContext } from '../context/request-context.js';
import { type Db, Migration, type SqlClient } from '../db/database.js';
import { ServiceError } from '../rpc/service-error.js';
import { eventually } from '../testing/eventually.js';
import { idempotencyWaiters } from '../testing/idempotency-waiters.js';
import { useTestDatabase } from '../testing/use-test-database.js';
import { canonicalJson, idempotent, type IdempotencyOptions, type IdempotencyRequest, requestFingerprint } from './idempotency.js';
import { IdempotencyKeysMigration } from './idempotency.migration.js';

class CreateThings extends Migration {
  override up() {
    this.addSql('create table things (id int generated always as identity primary key, name text not null)');
  }
}

const SUBJECT = 'test.things.create';
let db!: Db;
useTestDatabase(
  'idem',
  [
    { name: '0001-things', class: CreateThings },
    { name: '0002-idempotency-keys', class: IdempotencyKeysMigration },
  ],
  (d) => (db = d),
);
beforeEach(async () => {
  await db.query('truncate things, idempotency_keys');
});

type Thing = { data: { id: number; name: string } };
const req = (key: string | undefined, body: unknown, userId = 'u1'): IdempotencyRequest => ({ scope: SUBJECT, userId, key, fingerprint: requestFingerprint(SUBJECT, body) });

/** A create as a service writes it: a row, and its answer read back in the same transaction. */
async function createThing(tx: SqlClient, name: string): Promise<Thing> {
  const [row] = await tx.query<{ id: number }>('insert into things (name) values ($1) returning id', [name]);
  return { data: { id: row!.id, name } };
}

interface PostOptions {
  userId?: string;
  /** The create's check fails (before its transaction). */
  refuse?: boolean;
  /** The create waits for this before its transaction (it holds its key meanwhile). */
  gate?: Promise<void>;
  /** The create fails inside its transaction, after storing its response. */
  fail?: boolean;
  /** How many times the create ran (its check included). */
  runs?: { n: number };
  idem?: IdempotencyOptions<Thing>;
}

function post(key: string | undefined, body: { name: string }, opts: PostOptions = {}): Promise<Thing> {
  return idempotent<Thing>(
    db,
    req(key, body, opts.userId),
    async (finish) => {
      if (opts.runs) opts.runs.n++;
      if (opts.refuse) throw ServiceError.validation({ name: ['no longer allowed'] });
      await opts.gate;
      return db.transaction(async (tx) => {
        const answer = await finish(tx, await createThing(tx, body.name));
        if (opts.fail) throw ServiceError.validation({ name: ['nope'] });
        return answer;
      });
    },
    opts.idem,
  );
}

/** A first create holding its key (claimed, its check passed) until `release()`. */
async function firstRunning(key: string, opts: Omit<PostOptions, 'gate'> = {}) {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const done = post(key, { name: 'a' }, { ...opts, gate });
  done.catch(() => undefined);
  await eventually(() => db.query('select 1 from idempotency_keys where key = $1 and status = 0', [key]), (rows) => rows.length === 1, 'the first claiming its key');
  return { release, done };
}

/** Waits until a repeat waits for the request holding its key. */
const repeatWaiting = () => eventually(() => idempotencyWaiters(db), (n) => n > 0, 'a repeat waiting for the key');

const count = async (table: string) => (await db.query<{ n: number }>(`select count(*)::int as n from ${table}`))[0]!.n;

describe('idempotent', () => {
  it('without a key creates every time and stores nothing', async () => {
    const a = await post(undefined, { name: 'a' });
    const b = await post(undefined, { name: 'a' });
    expect(a.data.id).not.toBe(b.data.id);
    expect(await count('things')).toBe(2);
    expect(await count('idempotency_keys')).toBe(0);
  });

  it('same key, same body: the stored response, one row, and the repeat runs nothing', async () => {
    const first = await post('k-1', { name: 'a' });
    const runs = { n: 0 };
    const again = await post('k-1', { name: 'a' }, { runs });
    expect(again).toEqual(first);
    expect(JSON.stringify(again)).toBe(JSON.stringify(first));
    expect(runs.n).toBe(0);
    expect(await count('things')).toBe(1);
    const [row] = await db.query<{ status: number; fingerprint: string }>('select status, fingerprint from idempotency_keys');
    expect(row).toEqual({ status: 201, fingerprint: requestFingerprint(SUBJECT, { name: 'a' }) });
  });

  it('a repeat answers the first response even when its check would fail now (before any check)', async () => {
    const first = await post('k-checked', { name: 'a' });
    expect(await post('k-checked', { name: 'a' }, { refuse: true })).toEqual(first);
  });

  it('same key, different body: 422 naming Idempotency-Key, nothing created', async () => {
    await post('k-2', { name: 'a' });
    const err = await post('k-2', { name: 'b' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).code).toBe(ErrorCode.Validation);
    expect((err as ServiceError).errors).toEqual({ 'Idempotency-Key': ['This Idempotency-Key was already used with a different request.'] });
    expect(await count('things')).toBe(1);
  });

  it('keys belong to a user and a scope', async () => {
    const alice = await post('shared', { name: 'a' }, { userId: 'alice' });
    const bob = await post('shared', { name: 'a' }, { userId: 'bob' });
    expect(bob.data.id).not.toBe(alice.data.id);
    const other = await idempotent<Thing>(db, { scope: 'test.other.create', userId: 'alice', key: 'shared', fingerprint: requestFingerprint('test.other.create', { name: 'a' }) }, (finish) =>
      db.transaction(async (tx) => finish(tx, await createThing(tx, 'a'))),
    );
    expect(other.data.id).not.toBe(alice.data.id);
    expect(await count('things')).toBe(3);
  });

  it('concurrent duplicates: one create, every caller gets its response', async () => {
    const first = await firstRunning('k-race');
    const runs = { n: 0 };
    const repeats = Array.from({ length: 5 }, () => post('k-race', { name: 'a' }, { runs }));
    await eventually(() => idempotencyWaiters(db), (n) => n === 5, 'five repeats waiting for the key');
    first.release();
    const answer = await first.done;
    for (const a of await Promise.all(repeats)) expect(a).toEqual(answer);
    expect(runs.n).toBe(0);
    expect(await count('things')).toBe(1);
  });

  it('a repeat while the first runs with another body: 422 at once', async () => {
    const first = await firstRunning('k-mix');
    await expect(post('k-mix', { name: 'b' })).rejects.toMatchObject({ code: ErrorCode.Validation, errors: { 'Idempotency-Key': [expect.any(String)] } });
    first.release();
    await first.done;
    expect(await count('things')).toBe(1);
  });

  it('a repeat waiting for a first that fails runs itself', async () => {
    const first = await firstRunning('k-first-fails', { fail: true });
    const runs = { n: 0 };
    const repeat = post('k-first-fails', { name: 'a' }, { runs });
    await repeatWaiting();
    first.release();
    await expect(first.done).rejects.toThrow('nope');
    const answer = await repeat;
    expect(runs.n).toBe(1);
    expect(await db.query('select id from things')).toEqual([{ id: answer.data.id }]);
  });

  it('a first that does not finish in time: the repeat gets a 409 with retry_after, and the first still finishes', async () => {
    const first = await firstRunning('k-slow');
    const late = await post('k-slow', { name: 'a' }, { idem: { maxWaitMs: 300 } }).catch((e: unknown) => e);
    expect(late).toMatchObject({ code: ErrorCode.Conflict, extra: { retry_after: 1 } });
    // Bounded by the request's deadline as well (answered before it, inside the margin).
    const deadline = Date.now() + 800;
    const beforeDeadline = await runWithContext({ correlationId: 'c', deadline }, () => post('k-slow', { name: 'a' }).catch((e: unknown) => e));
    expect(beforeDeadline).toMatchObject({ code: ErrorCode.Conflict, extra: { retry_after: 1 } });
    expect(Date.now()).toBeLessThan(deadline);
    first.release();
    const answer = await first.done;
    expect(await post('k-slow', { name: 'a' })).toEqual(answer);
    expect(await count('things')).toBe(1);
  });

  it('a failed create leaves the key unused (a check, or its transaction rolled back): the retry creates', async () => {
    await expect(post('k-refused', { name: 'a' }, { refuse: true })).rejects.toThrow('no longer allowed');
    await expect(post('k-fail', { name: 'a' }, { fail: true })).rejects.toThrow('nope');
    expect(await count('idempotency_keys')).toBe(0);
    const ok = await post('k-fail', { name: 'a' });
    expect(ok.data.name).toBe('a');
    expect(await count('things')).toBe(1);
  });

  it('a create that fails after its transaction committed keeps its key: the repeat replays', async () => {
    const created = await idempotent<Thing>(db, req('k-late-failure', { name: 'a' }), async (finish) => {
      await db.transaction(async (tx) => finish(tx, await createThing(tx, 'a')));
      throw new Error('lost after the commit');
    }).catch((e: unknown) => e);
    expect(created).toBeInstanceOf(Error);
    const runs = { n: 0 };
    const again = await post('k-late-failure', { name: 'a' }, { runs });
    expect(runs.n).toBe(0);
    expect(await db.query('select id from things')).toEqual([{ id: again.data.id }]);
  });

  it('a key left running by a dead process is taken over after its lease; the old run can no longer finish', async () => {
    const first = await firstRunning('k-dead');
    await db.query("update idempotency_keys set created_at = created_at - interval '121 seconds'");
    // Taken over (by another request, even), which holds the key in its turn while the old run goes on.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const second = post('k-dead', { name: 'other' }, { gate });
    await eventually(
      () => db.query<{ fingerprint: string }>('select fingerprint from idempotency_keys where status = 0'),
      (rows) => rows[0]?.fingerprint === requestFingerprint(SUBJECT, { name: 'other' }),
      'the key taken over',
    );
    first.release();
    await expect(first.done).rejects.toMatchObject({ code: ErrorCode.Conflict });
    release();
    const taken = await second;
    expect(await db.query('select id, name from things')).toEqual([{ id: taken.data.id, name: 'other' }]);
    expect(await post('k-dead', { name: 'other' })).toEqual(taken);
  });

  it('an outdated response frees the key: the repeat runs again, and its response is the key\'s now', async () => {
    const first = await post('k-outdated', { name: 'a' });
    const outdated = async (r: Thing) => r.data.id === first.data.id;
    const second = await post('k-outdated', { name: 'a' }, { idem: { outdated } });
    expect(second.data.id).not.toBe(first.data.id);
    const runs = { n: 0 };
    expect(await post('k-outdated', { name: 'a' }, { idem: { outdated }, runs })).toEqual(second);
    expect(runs.n).toBe(0);
    expect(await count('things')).toBe(2);
  });

  it('an expired key is a new request (also with another body) and expired rows are swept', async () => {
    const first = await post('k-old', { name: 'a' });
    await post('k-other', { name: 'b' });
    await db.query("update idempotency_keys set created_at = now() - interval '24 hours 1 second'");
    const again = await post('k-old', { name: 'a' });
    expect(again.data.id).not.toBe(first.data.id);
    expect(await count('things')).toBe(3);
    // k-other expired too and was swept by that claim; k-old is the new row.
    expect(await db.query('select key from idempotency_keys')).toEqual([{ key: 'k-old' }]);
    await db.query("update idempotency_keys set created_at = now() - interval '25 hours'");
    expect((await post('k-old', { name: 'changed' })).data.name).toBe('changed');
  });

  it('a key younger than 24 h still replays', async () => {
    const first = await post('k-young', { name: 'a' });
    await db.query("update idempotency_keys set created_at = now() - interval '23 hours 59 minutes'");
    expect(await post('k-young', { name: 'a' })).toEqual(first);
    expect(await count('things')).toBe(1);
  });
});

describe('idempotent near the deadline', () => {
  const missing = () => ServiceError.validation({ 'assetable.id': ['The selected share (id 1) does not exist.'] });

  it("a check failing past the deadline's margin is the answer (no 503), and the key is freed", async () => {
    const failed = await runWithContext({ correlationId: 'c', deadline: Date.now() + 600 }, () =>
      idempotent(db, req('k-late', { name: 'a' }), async () => {
        // A (remote) check whose answer comes back inside the 250 ms margin.
        await eventually(async () => deadlinePassed(), Boolean, 'the deadline margin', 5000, 10);
        throw missing();
      }).catch((e: unknown) => e),
    );
    expect(failed).toMatchObject({ code: ErrorCode.Validation });
    expect(await count('idempotency_keys')).toBe(0);
  });

  it("a check's RPC timeout keeps its message and outcome", async () => {
    const timeout = ServiceError.unavailable('The screener service did not answer within 5000 ms.', RequestOutcome.Unknown);
    await expect(idempotent(db, req('k-timeout', { name: 'a' }), () => Promise.reject(timeout))).rejects.toBe(timeout);
    expect(await count('idempotency_keys')).toBe(0);
  });
});

describe('requestFingerprint', () => {
  it('ignores key order and undefined members, not values, nesting or the subject', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: undefined } })).toBe('{"a":{"d":[1,{"x":1,"y":2}]},"b":1}');
    const f = requestFingerprint('s', { a: 1, b: 'x' });
    expect(requestFingerprint('s', { b: 'x', a: 1 })).toBe(f);
    expect(requestFingerprint('s', { a: 1, b: 'x', c: undefined })).toBe(f);
    expect(requestFingerprint('s', { a: 2, b: 'x' })).not.toBe(f);
    expect(requestFingerprint('s', { a: '1', b: 'x' })).not.toBe(f);
    expect(requestFingerprint('t', { a: 1, b: 'x' })).not.toBe(f);
    expect(f).toMatch(/^[0-9a-f]{64}$/);
  });
});
