import type { Db } from '@invest/platform';
import type { CommittedFirings } from '../delivery/firing-publisher.js';
import { lockFeeds } from '../evaluation/feed-locks.js';
import type { AccountNotice } from './charge-failed-notice.js';

/**
 * Records an account notice in the user's inbox as a firing of no notification, with its `firing_publications`
 * row, in a transaction of its own (as evaluation's chunks are: decision 0026), so it is published as soon as it
 * commits. Null when the notice is there already (a redelivered event): the first recording's row, or the
 * publication backstop, publishes it; never twice (unique `(user_id, step_key)` of notices, migration 0013).
 */
export async function recordAccountNotice(db: Db, notice: AccountNotice, firedAt: Date): Promise<CommittedFirings | null> {
  return db.transaction(async (tx) => {
    // The user's inbox ids become visible in order, as evaluation's firings do (feed-locks.ts).
    await lockFeeds(tx, [notice.userId]);
    const [row] = await tx.query<{ id: string; event_id: string; publication_id: string }>(
      `with fired as (
         insert into notification_firings (notification_id, step_key, user_id, type, texts, path, assets, explanation, fired_at)
         values (null, $1, $2, $3, $4::json, $5, '[]', 'null', $6)
         on conflict (user_id, step_key) where notification_id is null do nothing
         returning id, event_id),
       published as (insert into firing_publications (firing_ids) select array[id] from fired returning id)
       select fired.id::text, fired.event_id::text, published.id::text as publication_id from fired cross join published`,
      [notice.stepKey, notice.userId, notice.type, JSON.stringify(notice.texts), notice.path, firedAt],
    );
    if (!row) return null;
    return {
      publicationId: Number(row.publication_id),
      firings: [
        {
          id: Number(row.id),
          eventId: row.event_id,
          notificationId: null,
          userId: notice.userId,
          type: notice.type,
          texts: notice.texts,
          path: notice.path,
          assets: [],
          explanation: null,
          firedAt,
        },
      ],
    };
  });
}
