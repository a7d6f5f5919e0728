import { describe, expect, it } from 'vitest';
import { ErrorCode } from '@invest/contracts';
import { type Db, Migration } from '../db/database.js';
import { ServiceError } from '../rpc/service-error.js';
import { useTestDatabase } from '../testing/use-test-database.js';
import { lockQuotaOwner, requireBelowQuota } from './quota.js';

class CreateItems extends Migration {
  override up() {
    this.addSql('create table items (id int generated always as identity primary key, owner text not null)');
  }
}

let db!: Db;
useTestDatabase('quota', [{ name: '0001-items', class: CreateItems }], (d) => (db = d));

const create = (owner: string, limit: number) =>
  db.transaction(async (tx) => {
    await lockQuotaOwner(tx, `items:${owner}`);
    await requireBelowQuota(tx, { limit, rowsSql: 'select 1 from items where owner = $1', params: [owner], field: 'items', message: `At most ${limit} items.` });
    await new Promise((r) => setTimeout(r, 5));
    await tx.query('insert into items (owner) values ($1)', [owner]);
  });

describe('quota', () => {
  it('concurrent creates stop exactly at the limit, with a 422 naming it', async () => {
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => create('a', 3)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(rejected).toHaveLength(7);
    const err = rejected[0]!.reason as ServiceError;
    expect(err.code).toBe(ErrorCode.Validation);
    expect(err.errors).toEqual({ items: ['At most 3 items.'] });
    expect((await db.query<{ n: number }>("select count(*)::int as n from items where owner = 'a'"))[0]!.n).toBe(3);
  });

  it('each owner has a quota of their own', async () => {
    await create('b', 1);
    await expect(create('b', 1)).rejects.toThrow('At most 1 items.');
    await create('c', 1);
  });
});
