/**
 * Cuts planned firings into chunks of about `size` that never share a user, in the plan's order of first
 * appearance. Each chunk commits in a transaction of its own, several at once, and a transaction takes its
 * users' feed locks (`lockFeeds`): two concurrent chunks sharing a user would make the second wait for the
 * first's commit, and with ~500 firings a chunk among a few hundred thousand users they usually do.
 * A chunk is cut before a user's firings would take it past `size`; one user's firings alone may exceed it.
 */
export function chunkByUser<T extends { n: { userId: string } }>(firings: readonly T[], size: number): T[][] {
  const byUser = new Map<string, T[]>();
  for (const f of firings) {
    const list = byUser.get(f.n.userId);
    if (list) list.push(f);
    else byUser.set(f.n.userId, [f]);
  }
  const chunks: T[][] = [];
  let chunk: T[] = [];
  for (const list of byUser.values()) {
    if (chunk.length > 0 && chunk.length + list.length > size) {
      chunks.push(chunk);
      chunk = [];
    }
    chunk.push(...list);
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}
