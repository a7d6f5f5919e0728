import type { SqlClient } from '@invest/platform';

/**
 * A user's inbox is read by id after the last one seen (`after_id`, the SSE's `Last-Event-ID`): two transactions
 * firing for the same user (two alerts instances, a sweep racing an event) could otherwise commit a higher id
 * before a lower one, and a reader that saw the higher one would step past the lower one for good. So a
 * transaction takes the feed locks of its users before its firings get their ids: a second transaction firing
 * for one of them takes its ids only once the first has committed.
 *
 * A feed lock covers a bucket of users (a hash of the user id): an advisory transaction lock per bucket, taken
 * in bucket order (no deadlock). Never more than `FEED_BUCKETS` locks per transaction, so a sweep firing for
 * tens of thousands of users stays far below the server's lock table (one lock per user ran out of shared
 * memory at 40,000), and nothing is written: a row lock per user cost a WAL record and a dirtied page each,
 * about as much as the firing's own update. Users of one bucket wait for each other, which only the
 * transactions of different evaluations can do: one evaluation's chunks never share a bucket (`chunkByFeed`).
 */
export const FEED_BUCKETS = 256;

/** The first key of the feed locks among the database's advisory locks (the jobs' locks use the one-key form). */
const FEED_LOCK_SPACE = 0x666565; // "fee(d)"

/** A user's feed bucket: FNV-1a of the id. */
export function feedBucketOf(userId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < userId.length; i++) {
    h ^= userId.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % FEED_BUCKETS;
}

/** Takes the feed locks of `userIds`, in bucket order, until the transaction ends. */
export async function lockFeeds(tx: SqlClient, userIds: readonly string[]): Promise<void> {
  const buckets = [...new Set(userIds.map(feedBucketOf))].sort((a, b) => a - b);
  await tx.query(`select pg_advisory_xact_lock(${FEED_LOCK_SPACE}, b) from (select b from unnest($1::int[]) b order by b) s`, [buckets]);
}

/**
 * Cuts planned firings into chunks of about `size` that never share a feed bucket, in the plan's order of
 * first appearance. Each chunk commits in a transaction of its own, several at once: sharing a bucket, the
 * second would wait for the first's commit. A chunk is cut before a bucket's firings would take it past `size`;
 * one bucket's firings alone may exceed it.
 */
export function chunkByFeed<T extends { n: { userId: string } }>(firings: readonly T[], size: number): T[][] {
  const byBucket = new Map<number, T[]>();
  for (const f of firings) {
    const b = feedBucketOf(f.n.userId);
    const list = byBucket.get(b);
    if (list) list.push(f);
    else byBucket.set(b, [f]);
  }
  const chunks: T[][] = [];
  let chunk: T[] = [];
  for (const list of byBucket.values()) {
    if (chunk.length > 0 && chunk.length + list.length > size) {
      chunks.push(chunk);
      chunk = [];
    }
    chunk.push(...list);
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}
