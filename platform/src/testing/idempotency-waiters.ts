import { type Db, IDEMPOTENCY_WAIT_MARK } from '@invest/platform';

/**
 * How many requests wait right now, in `db`'s database, for the request that holds their `Idempotency-Key` (their
 * statement carries IDEMPOTENCY_WAIT_MARK): a test sees a repeat arrive while its first still runs.
 */
export async function idempotencyWaiters(db: Db): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    `select count(*)::int as n from pg_stat_activity
      where datname = current_database() and state = 'active' and pid <> pg_backend_pid() and position($1 in query) > 0`,
    [IDEMPOTENCY_WAIT_MARK],
  );
  return row?.n ?? 0;
}
