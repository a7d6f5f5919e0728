import type { SqlClient } from '@invest/platform';

/**
 * The card a user last paid with (`payment_cards`, outside the events: see migration 0003). A later payment
 * replaces it; an older one reported late does not.
 */
export async function saveCard(db: SqlClient, userId: string, card: { token: string; cardLastFour: string | null; at: Date }): Promise<void> {
  await db.query(
    `insert into payment_cards (user_id, token, card_last_four, updated_at) values ($1, $2, $3, $4)
     on conflict (user_id) do update set token = excluded.token, card_last_four = excluded.card_last_four, updated_at = excluded.updated_at
     where payment_cards.updated_at <= excluded.updated_at`,
    [userId, card.token, card.cardLastFour, card.at],
  );
}

export async function savedCard(db: SqlClient, userId: string): Promise<{ token: string; card_last_four: string | null } | undefined> {
  const [row] = await db.query<{ token: string; card_last_four: string | null }>('select token, card_last_four from payment_cards where user_id = $1', [userId]);
  return row;
}
