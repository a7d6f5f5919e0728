import type { Db, Tx } from '@invest/platform';

/** A transaction kept open, uncommitted, after its work: what another one does meanwhile is the test (races on a lock). */
export interface HeldTransaction<T> {
  /** Its backend's pid (`blockedBy` looks for backends waiting on it). */
  pid: number;
  /** Lets it commit; `done` then settles. */
  release(): void;
  done: Promise<T>;
}

/** Runs `work` in a transaction and keeps that transaction open until `release()`. */
export async function holdOpen<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<HeldTransaction<T>> {
  let release!: () => void;
  const hold = new Promise<void>((r) => (release = r));
  let worked!: (pid: number) => void;
  const ready = new Promise<number>((r) => (worked = r));
  const done = db.transaction(async (tx) => {
    const [{ pid } = { pid: 0 }] = await tx.query<{ pid: number }>('select pg_backend_pid() as pid');
    const result = await work(tx);
    worked(pid);
    await hold;
    return result;
  });
  // `done` settles before `ready` only when `work` failed: that failure, not a wait for ever.
  const pid = await Promise.race([ready, done.then(() => 0)]);
  return { pid, release, done };
}

/**
 * Whether some backend comes to wait for a lock that the backend `pid` holds before `settled` settles (seen in
 * pg_blocking_pids, polled: no timeout decides the order). False when `settled` settled without waiting.
 */
export async function blockedBy(db: Db, pid: number, settled: Promise<unknown>): Promise<boolean> {
  let done = false;
  void settled.then(
    () => (done = true),
    () => (done = true),
  );
  while (!done) {
    const rows = await db.query('select 1 from pg_stat_activity where $1::int = any(pg_blocking_pids(pid))', [pid]);
    if (rows.length > 0) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return false;
}
