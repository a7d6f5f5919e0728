import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '../testing/use-test-database.js';
import { type Db, Migration, openDatabase } from './database.js';

class CreateThings extends Migration {
  override up() {
    this.addSql('create table things (id int primary key, name text not null)');
  }
}

describe('openDatabase', () => {
  let db!: Db;
  useTestDatabase('db', [{ name: '0001-things', class: CreateThings }], (d) => (db = d));

  it('runs migrations and binds $n parameters server-side', async () => {
    await db.query('insert into things (id, name) values ($1, $2)', [1, "O'Brien ? $2"]);
    const rows = await db.query<{ name: string }>('select name from things where id = $1', [1]);
    expect(rows).toEqual([{ name: "O'Brien ? $2" }]);
  });

  it('rolls back every statement of a failed transaction', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.query('insert into things (id, name) values ($1, $2)', [2, 'two']);
        await tx.query('insert into things (id, name) values ($1, $2)', [1, 'duplicate']);
      }),
    ).rejects.toThrow();
    expect(await db.query('select id from things where id = 2')).toEqual([]);
  });

  it('runs hot reads as named prepared statements on the same pool and type parsers', async () => {
    // Executed as a named statement, the query sees itself in this session's prepared statements.
    const [own] = await db.query<{ n: number }>("select count(*)::int as n from pg_prepared_statements where name like 'q\\_%'", [], {
      prepare: true,
    });
    expect(own!.n).toBeGreaterThanOrEqual(1);
    const plain = await db.query('select 1.50::numeric as x, $1::text as t', ['a']);
    const prepared = await db.query('select 1.50::numeric as x, $1::text as t', ['a'], { prepare: true });
    expect(prepared).toEqual(plain);
  });

  it('reads numeric columns as their exact text, never as doubles (money is exact end to end)', async () => {
    for (const prepare of [false, true]) {
      const [row] = await db.query<{ amount: unknown }>('select $1::numeric * 1 as amount', ['999999999999999.99999999'], { prepare });
      expect(row!.amount).toBe('999999999999999.99999999');
    }
  });

  it('keeps an idle pooled connection open for poolIdleTimeoutMs, and closes it after', async () => {
    const pidOf = async (d: Db) => (await d.query<{ pid: number }>('select pg_backend_pid() as pid'))[0]!.pid;
    const idle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const kept = await openDatabase({ url: db.url, migrations: [], poolIdleTimeoutMs: 60_000 });
    const closed = await openDatabase({ url: db.url, migrations: [], poolIdleTimeoutMs: 50 });
    try {
      const [keptPid, closedPid] = [await pidOf(kept), await pidOf(closed)];
      await idle(400);
      expect(await pidOf(kept)).toBe(keptPid);
      expect(await pidOf(closed)).not.toBe(closedPid);
    } finally {
      await kept.close();
      await closed.close();
    }
  });

  it('does not re-run applied migrations on a second open', async () => {
    const again = await openDatabase({ url: db.url, migrations: [{ name: '0001-things', class: CreateThings }] });
    expect(await again.query<{ n: string }>('select count(*)::text as n from things')).toEqual([{ n: '1' }]);
    await again.close();
  });
});
