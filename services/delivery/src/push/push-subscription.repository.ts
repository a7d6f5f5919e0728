import type { SqlClient } from '@invest/platform';

/** What web-push needs to encrypt for one browser: its endpoint and its keys (RFC 8291). */
export interface StoredPushSubscription {
  userId: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  createdAt: Date;
}

/**
 * Subscriptions one user may keep; registering one more drops the oldest. Browsers that were reset or
 * uninstalled never unsubscribe, so old ones pile up until a send finds them gone; the cap bounds the
 * messages one firing costs meanwhile.
 */
export const PUSH_SUBSCRIPTIONS_PER_USER = 20;

// Timestamps come back as strings or Dates depending on the driver's settings: read either.
type Row = { user_id: string; endpoint: string; p256dh: string; auth: string; created_at: Date | string };
const toSubscription = (r: Row): StoredPushSubscription => ({ userId: r.user_id, endpoint: r.endpoint, p256dh: r.p256dh, auth: r.auth, createdAt: new Date(r.created_at) });

/**
 * Saves a browser's subscription for this user: a repeat (same endpoint) renews its keys. An endpoint another
 * user registered stays theirs and answers undefined: a subscription is never taken over, only removed by its
 * owner or by the push service saying it is gone.
 */
export async function savePushSubscription(db: SqlClient, userId: string, sub: { endpoint: string; p256dh: string; auth: string }): Promise<StoredPushSubscription | undefined> {
  const [row] = await db.query<Row>(
    `insert into push_subscriptions as s (user_id, endpoint, p256dh, auth) values ($1, $2, $3, $4)
     on conflict (endpoint) do update set p256dh = excluded.p256dh, auth = excluded.auth where s.user_id = excluded.user_id
     returning user_id, endpoint, p256dh, auth, created_at`,
    [userId, sub.endpoint, sub.p256dh, sub.auth],
  );
  if (!row) return undefined;
  await db.query(
    `delete from push_subscriptions where user_id = $1 and id not in (
       select id from push_subscriptions where user_id = $1 order by created_at desc, id desc limit $2)`,
    [userId, PUSH_SUBSCRIPTIONS_PER_USER],
  );
  return toSubscription(row);
}

/** Removes this user's subscription of that endpoint; true when there was one. Another user's stays. */
export async function deletePushSubscription(db: SqlClient, userId: string, endpoint: string): Promise<boolean> {
  const rows = await db.query('delete from push_subscriptions where user_id = $1 and endpoint = $2 returning id', [userId, endpoint]);
  return rows.length > 0;
}

/** Each user's push endpoints, oldest first (users without one left out). */
export async function pushEndpointsOf(db: SqlClient, userIds: readonly string[]): Promise<Map<string, string[]>> {
  const rows = await db.query<{ user_id: string; endpoint: string }>('select user_id, endpoint from push_subscriptions where user_id = any($1::text[]) order by id', [userIds]);
  const endpoints = new Map<string, string[]>();
  for (const r of rows) endpoints.set(r.user_id, [...(endpoints.get(r.user_id) ?? []), r.endpoint]);
  return endpoints;
}

export async function findPushSubscription(db: SqlClient, userId: string, endpoint: string): Promise<StoredPushSubscription | undefined> {
  const [row] = await db.query<Row>('select user_id, endpoint, p256dh, auth, created_at from push_subscriptions where user_id = $1 and endpoint = $2', [userId, endpoint]);
  return row ? toSubscription(row) : undefined;
}
