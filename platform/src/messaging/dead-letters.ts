import type { JsMsg } from '@nats-io/jetstream';
import { type BusEvent, busEventSchema } from '@invest/contracts';
import type { Db, Tx } from '../db/database.js';

/** Why a message was set aside: it can never be read, or its handler failed on every delivery. */
export type DeadLetterReason = 'malformed' | 'failed';

/** Keeps a message that cannot be applied in `es_dead_letters`, for an operator (docs/runbook.md). */
export async function recordDeadLetter(db: Db, consumer: string, msg: JsMsg, reason: DeadLetterReason, err: unknown, event: BusEvent | undefined): Promise<void> {
  await db.query(
    `insert into es_dead_letters (consumer, stream, subject, stream_sequence, deliveries, reason, error, event_id, event_type, payload)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [consumer, msg.info.stream, msg.subject, msg.seq, msg.info.deliveryCount, reason, errorText(err), event?.id ?? null, event?.type ?? null, msg.string()],
  );
}

/** What a replay does with one dead letter's event, inside the transaction that deletes the dead letter. */
export type ReplayApply = (envelope: BusEvent, tx: Tx) => Promise<boolean>;

export interface ReplayResult {
  id: string;
  /** Whether its effect was applied now (false: the inbox had it already). */
  applied?: boolean;
  error?: unknown;
}

/**
 * Applies a consumer's dead letters marked for replay (`replay_requested_at`, see the runbook), at most 100, each
 * in its own transaction that also deletes it. One that fails again stays, with the new error, unmarked. A row
 * another instance is replaying (locked) is skipped.
 */
export async function replayDeadLetters(db: Db, consumer: string, apply: ReplayApply): Promise<ReplayResult[]> {
  const rows = await db.query<{ id: string }>(
    'select id::text as id from es_dead_letters where consumer = $1 and replay_requested_at is not null order by es_dead_letters.id limit 100',
    [consumer],
  );
  const results: ReplayResult[] = [];
  for (const { id } of rows) {
    try {
      const applied = await db.transaction(async (tx) => {
        const [row] = await tx.query<{ payload: string }>('select payload from es_dead_letters where id = $1 and replay_requested_at is not null for update skip locked', [id]);
        if (!row) return undefined;
        const result = await apply(busEventSchema.parse(JSON.parse(row.payload)) as BusEvent, tx);
        await tx.query('delete from es_dead_letters where id = $1', [id]);
        return result;
      });
      if (applied !== undefined) results.push({ id, applied });
    } catch (error) {
      await db.query('update es_dead_letters set replay_requested_at = null, replays = replays + 1, error = $2 where id = $1', [id, errorText(error)]);
      results.push({ id, error });
    }
  }
  return results;
}

const errorText = (err: unknown) => String((err as Error)?.message ?? err).slice(0, 2_000);
