import type { DeliveryLanguage } from '@invest/contracts';
import type { SqlClient } from '@invest/platform';

/** An address whose confirmation mail is due: new, or changed since (settings clear `confirm_sent_at`). */
export interface UnconfirmedAddress {
  userId: string;
  address: string;
  language: DeliveryLanguage;
}

/** The address alerts go to: confirmed, and not refused for good by its server since. */
export async function deliverableAddress(db: SqlClient, userId: string): Promise<string | undefined> {
  return (await deliverableAddresses(db, [userId])).get(userId);
}

/** Each user's deliverable address (users without one left out). */
export async function deliverableAddresses(db: SqlClient, userIds: readonly string[]): Promise<Map<string, string>> {
  const rows = await db.query<{ user_id: string; address: string }>(
    'select user_id, address from email_addresses where user_id = any($1::text[]) and confirmed_at is not null and bounced_at is null',
    [userIds],
  );
  return new Map(rows.map((r) => [r.user_id, r.address]));
}

/** The opaque token of the one-click unsubscribe link of the user's address (none once it changed). */
export async function unsubscribeTokenOf(db: SqlClient, userId: string, address: string): Promise<string | undefined> {
  const [row] = await db.query<{ unsubscribe_token: string }>('select unsubscribe_token from email_addresses where user_id = $1 and address = $2', [userId, address]);
  return row?.unsubscribe_token;
}

/** Nothing more goes to this address (a 5xx for the recipient); it stays, shown in settings. */
export async function markBounced(db: SqlClient, userId: string, address: string, at: Date): Promise<void> {
  await db.query('update email_addresses set bounced_at = $3 where user_id = $1 and address = $2', [userId, address, at]);
}

/**
 * Up to `limit` addresses still owed a confirmation mail, locked for this transaction (another instance skips
 * them), with the user's language.
 */
export async function lockUnsentConfirmations(tx: SqlClient, limit: number): Promise<UnconfirmedAddress[]> {
  const rows = await tx.query<{ user_id: string; address: string; language: DeliveryLanguage | null }>(
    `select e.user_id, e.address, s.language from email_addresses e left join settings s on s.user_id = e.user_id
     where e.confirm_sent_at is null and e.confirmed_at is null
     order by e.updated_at limit $1 for update of e skip locked`,
    [limit],
  );
  return rows.map((r) => ({ userId: r.user_id, address: r.address, language: r.language ?? 'ru' }));
}

/** The confirmation mail went (or was refused for good): its token is the one that confirms; a past bounce is forgotten. */
export async function recordConfirmationSent(tx: SqlClient, userId: string, tokenHash: string, at: Date, bouncedAt: Date | null): Promise<void> {
  await tx.query('update email_addresses set confirm_token_hash = $2, confirm_sent_at = $3, bounced_at = $4 where user_id = $1', [userId, tokenHash, at, bouncedAt]);
}

/** The address a confirmation token was sent to now: a token of an address changed since finds nothing. */
export async function addressByConfirmToken(
  db: SqlClient,
  tokenHash: string,
): Promise<{ userId: string; confirmSentAt: Date; confirmedAt: Date | null; language: DeliveryLanguage | null } | undefined> {
  const [row] = await db.query<{ user_id: string; confirm_sent_at: Date; confirmed_at: Date | null; language: DeliveryLanguage | null }>(
    `select e.user_id, e.confirm_sent_at, e.confirmed_at, s.language from email_addresses e left join settings s on s.user_id = e.user_id
     where e.confirm_token_hash = $1 and e.confirm_sent_at is not null`,
    [tokenHash],
  );
  return row && { userId: row.user_id, confirmSentAt: new Date(row.confirm_sent_at), confirmedAt: row.confirmed_at && new Date(row.confirmed_at), language: row.language };
}

export async function markConfirmed(db: SqlClient, userId: string, tokenHash: string, at: Date): Promise<void> {
  await db.query('update email_addresses set confirmed_at = $3, updated_at = $3 where user_id = $1 and confirm_token_hash = $2 and confirmed_at is null', [userId, tokenHash, at]);
}

/** The user and address an unsubscribe link names, whether e-mail is on for them, and their language. */
export async function addressByUnsubscribeToken(
  db: SqlClient,
  token: string,
): Promise<{ userId: string; address: string; emailOn: boolean; language: DeliveryLanguage | null } | undefined> {
  const [row] = await db.query<{ user_id: string; address: string; email: boolean | null; language: DeliveryLanguage | null }>(
    'select e.user_id, e.address, s.email, s.language from email_addresses e left join settings s on s.user_id = e.user_id where e.unsubscribe_token = $1',
    [token],
  );
  // No settings row: the defaults, e-mail on.
  return row && { userId: row.user_id, address: row.address, emailOn: row.email ?? true, language: row.language };
}

/** The settings screen's "last delivery failed: …" for e-mail (as the sender loop records other failures). */
export async function recordEmailFailure(db: SqlClient, userId: string, reason: string, at: Date): Promise<void> {
  await db.query(
    `insert into delivery_failures (user_id, channel, at, reason) values ($1, 'email', $2, $3)
     on conflict (user_id, channel) do update set at = excluded.at, reason = excluded.reason`,
    [userId, at, reason],
  );
}
