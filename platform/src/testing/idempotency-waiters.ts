import type { Db } from '@invest/platform/db/database';
import { idempotencyWaiting } from '@invest/platform/idempotency/idempotency';

/**
 * How many requests of this process wait right now, on `db`, for the request that holds their `Idempotency-Key`:
 * a test sees a repeat arrive while its first still runs (the service under test runs in the test's process).
 */
export async function idempotencyWaiters(db: Db): Promise<number> {
  return idempotencyWaiting(db);
}
