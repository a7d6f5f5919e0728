import { beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode, RequestOutcome } from '@invest/contracts';
import { runWithContext } from '../context/request-context.js';
import { type Db, Migration, type SqlClient } from '../db/database.js';
import { ServiceError } from '../rpc/service-error.js';
import { useTestDatabase } from '../testing/use-test-database.js';
import { canonicalJson, checkedUnlessReplayed, forgetIdempotentResponse, type IdempotencyRequest, requestFingerprint, withIdempotency } from './idempotency.js';
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const req = (key: string | undefined, body: unknown, userId = 'u1'): IdempotencyRequest => ({ scope: SUBJECT, userId, key, fingerprint: requestFingerprint(SUBJECT, body) });

/** A create as a service writes it: a row, and its answer read back in the same transaction. */
async function createThing(tx: SqlClient, name: string, pauseMs = 0): Promise<{ data: { id: number; name: string } }> {
  const [row] = await tx.query<{ id: number }>('insert into things (name) values ($1) returning id', [name]);
  if (pauseMs) await sleep(pauseMs);
  return { data: { id: row!.id, name } };
}

function post(key: string | undefined, body: { name: string }, opts: { userId?: string; pauseMs?: number; fail?: boolean } = {}) {
  return db.transaction((tx) =>
    withIdempotency(tx, req(key, body, opts.userId), async () => {
      const answer = await createThing(tx, body.name, opts.pauseMs);
      if (opts.fail) throw ServiceError.validation({ name: ['nope'] });
      return answer;
    }),
  );
}

const count = async (table: string) => (await db.query<{ n: number }>(`select count(*)::int as n from ${table}`))[0]!.n;

describe('withIdempotency', () => {
  it('without a key creates every time and stores nothing', async () => {
    const a = await post(undefined, { name: 'a' });
    const b = await post(undefined, { name: 'a' });
    expect(a.data.id).not.toBe(b.data.id);
    expect(await count('things')).toBe(2);
    expect(await count('idempotency_keys')).toBe(0);
  });

  it('same key, same body: the stored response, one row', async () => {
    const first = await post('k-1', { name: 'a' });
    const again = await post('k-1', { name: 'a' });
    expect(again).toEqual(first);
    expect(JSON.stringify(again)).toBe(JSON.stringify(first));
    expect(await count('things')).toBe(1);
    const [row] = await db.query<{ status: number; fingerprint: string }>('select status, fingerprint from idempotency_keys');
    expect(row).toEqual({ status: 201, fingerprint: requestFingerprint(SUBJECT, { name: 'a' }) });
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
    const other = await db.transaction((tx) =>
      withIdempotency(tx, { scope: 'test.other.create', userId: 'alice', key: 'shared', fingerprint: requestFingerprint('test.other.create', { name: 'a' }) }, () =>
        createThing(tx, 'a'),
      ),
    );
    expect(other.data.id).not.toBe(alice.data.id);
    expect(await count('things')).toBe(3);
  });

  it('concurrent duplicates: one create, every caller gets its response', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => post('k-race', { name: 'race' }, { pauseMs: 100 })));
    expect(await count('things')).toBe(1);
    for (const a of answers) expect(a).toEqual(answers[0]);
  });

  it('concurrent requests with the same key and different bodies: one create, the others 422', async () => {
    const results = await Promise.allSettled([post('k-mix', { name: 'x' }, { pauseMs: 100 }), post('k-mix', { name: 'y' }, { pauseMs: 100 })]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(1);
    expect(await count('things')).toBe(1);
  });

  it('a failed create leaves the key unused: the retry creates', async () => {
    await expect(post('k-fail', { name: 'a' }, { fail: true })).rejects.toThrow('nope');
    expect(await count('idempotency_keys')).toBe(0);
    const ok = await post('k-fail', { name: 'a' });
    expect(ok.data.name).toBe('a');
    expect(await count('things')).toBe(1);
  });

  it('an expired key is a new request (also with another body) and expired rows are swept', async () => {
    const first = await post('k-old', { name: 'a' });
    await post('k-other', { name: 'b' });
    await db.query("update idempotency_keys set created_at = now() - interval '24 hours 1 second'");
    const again = await post('k-old', { name: 'a' });
    expect(again.data.id).not.toBe(first.data.id);
    expect(await count('things')).toBe(3);
    // k-other expired too and was swept by that write; k-old is the new row.
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

describe('forgetIdempotentResponse', () => {
  it('forgets a key while it holds the given response: the next request with it runs again', async () => {
    const first = await post('k-forget', { name: 'a' });
    await forgetIdempotentResponse(db, req('k-forget', { name: 'a' }), first);
    const again = await post('k-forget', { name: 'a' });
    expect(again.data.id).not.toBe(first.data.id);
    expect(await count('things')).toBe(2);
  });

  it('keeps a key that holds another response by now (claimed again meanwhile), and ignores no key', async () => {
    const first = await post('k-keep', { name: 'a' });
    await forgetIdempotentResponse(db, req('k-keep', { name: 'a' }), { data: { id: first.data.id + 1, name: 'a' } });
    await forgetIdempotentResponse(db, req(undefined, { name: 'a' }), first);
    expect(await post('k-keep', { name: 'a' })).toEqual(first);
    expect(await count('things')).toBe(1);
  });
});

describe('checkedUnlessReplayed', () => {
  const refused = () => ServiceError.validation({ name: ['no longer allowed'] });
  /** A first create holding its key until `release()`; `claimed` resolves once its key is taken. */
  function firstRunning(key: string, opts: { fail?: boolean } = {}) {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let claimed!: () => void;
    const claimedP = new Promise<void>((r) => (claimed = r));
    const done = db.transaction((tx) =>
      withIdempotency(tx, req(key, { name: 'a' }), async () => {
        claimed();
        const answer = await createThing(tx, 'a');
        await gate;
        if (opts.fail) throw ServiceError.validation({ name: ['the first failed'] });
        return answer;
      }),
    );
    done.catch(() => undefined);
    return { claimed: claimedP, release, done };
  }

  it('runs the checks without a key, and a failure is the answer', async () => {
    expect(await checkedUnlessReplayed(db, req(undefined, { name: 'a' }), async () => 7)).toEqual({ checked: 7 });
    await expect(checkedUnlessReplayed(db, req(undefined, { name: 'a' }), () => Promise.reject(refused()))).rejects.toThrow(ServiceError);
  });

  it('a committed first: its response, and the checks do not run', async () => {
    const first = await post('k-done', { name: 'a' });
    let ran = false;
    const got = await checkedUnlessReplayed(db, req('k-done', { name: 'a' }), async () => {
      ran = true;
      throw refused();
    });
    expect(got).toEqual({ replayed: first });
    expect(ran).toBe(false);
  });

  it('a first still running when a check fails: waits for it and gives its response', async () => {
    const first = firstRunning('k-running');
    await first.claimed;
    const second = checkedUnlessReplayed(db, req('k-running', { name: 'a' }), () => Promise.reject(refused()));
    let settled = false;
    void second.then(() => (settled = true), () => (settled = true));
    await sleep(150);
    expect(settled).toBe(false);
    first.release();
    const answer = await first.done;
    expect(await second).toEqual({ replayed: answer });
    expect(await count('things')).toBe(1);
  });

  it('a first that rolls back, or none at all: the check failure stands and the key stays unused', async () => {
    const first = firstRunning('k-rolled', { fail: true });
    await first.claimed;
    const second = checkedUnlessReplayed(db, req('k-rolled', { name: 'a' }), () => Promise.reject(refused()));
    first.release();
    await expect(first.done).rejects.toThrow(ServiceError);
    await expect(second).rejects.toMatchObject({ code: ErrorCode.Validation, errors: { name: ['no longer allowed'] } });
    await expect(checkedUnlessReplayed(db, req('k-none', { name: 'a' }), () => Promise.reject(refused()))).rejects.toThrow(ServiceError);
    expect(await count('idempotency_keys')).toBe(0);
    expect(await count('things')).toBe(0);
  });
});

describe('checkedUnlessReplayed near the deadline', () => {
  // A check whose (remote) answer came back 100 ms before the caller's deadline, inside the 250 ms margin.
  const nearDeadline = <T>(fn: () => Promise<T>) => runWithContext({ correlationId: 'c', deadline: Date.now() + 100 }, fn);
  const missing = () => ServiceError.validation({ 'assetable.id': ['The selected share (id 1) does not exist.'] });

  it('the check failure is the answer, with a key as without one (no 503 "reached the service after its deadline")', async () => {
    await expect(nearDeadline(() => checkedUnlessReplayed(db, req(undefined, { name: 'a' }), () => Promise.reject(missing())))).rejects.toMatchObject({ code: ErrorCode.Validation });
    await expect(nearDeadline(() => checkedUnlessReplayed(db, req('k-late', { name: 'a' }), () => Promise.reject(missing())))).rejects.toMatchObject({ code: ErrorCode.Validation });
  });

  it("a check's RPC timeout keeps its message and outcome", async () => {
    const timeout = ServiceError.unavailable('The screener service did not answer within 5000 ms.', RequestOutcome.Unknown);
    await expect(nearDeadline(() => checkedUnlessReplayed(db, req('k-timeout', { name: 'a' }), () => Promise.reject(timeout)))).rejects.toBe(timeout);
    await expect(checkedUnlessReplayed(db, req('k-timeout', { name: 'a' }), () => Promise.reject(timeout))).rejects.toBe(timeout);
  });
});
