import { randomUUID } from 'node:crypto';
import { currentContext } from '../context/request-context.js';
import type { SqlClient, Tx } from '../db/database.js';
import { pgError } from '../db/pg-error.js';
import { TRACEPARENT, traceparentOf } from '../tracing/tracing.js';

/** An event to append. `id` defaults to a random UUID; give a deterministic one to make a command idempotent. */
export interface NewEvent<Type extends string = string, Data = unknown> {
  id?: string;
  type: Type;
  data: Data;
  metadata?: Record<string, unknown>;
}

/** An event as stored. Positions are strings because they are Postgres bigints. */
export interface RecordedEvent<Type extends string = string, Data = unknown> {
  id: string;
  type: Type;
  data: Data;
  metadata: Record<string, unknown>;
  streamName: string;
  streamPosition: number;
  globalPosition: string;
  transactionId: string;
  recordedAt: Date;
}

/**
 * What the stream must look like before the append: `'no_stream'` (creation), `'any'`, or its exact
 * version (the position of its last event; an empty stream is version 0).
 */
export type ExpectedVersion = 'no_stream' | 'any' | number;

export class ConcurrencyError extends Error {
  constructor(
    readonly streamName: string,
    readonly expected: ExpectedVersion,
    readonly actual: number,
  ) {
    super(`stream ${streamName}: expected version ${expected}, found ${actual}`);
    this.name = 'ConcurrencyError';
  }
}

/** Some, but not all, of the event ids of an append are already stored, or stored in another stream. */
export class EventIdConflictError extends Error {
  constructor(readonly eventIds: string[]) {
    super(`event ids already used elsewhere: ${eventIds.join(', ')}`);
    this.name = 'EventIdConflictError';
  }
}

export interface AppendOptions {
  /**
   * The caller read the stream at the expected (numeric) version in this transaction and checked the event ids
   * against it (handleCommand does): skip the two look-ups, and let the unique keys catch what moved since.
   */
  streamRead?: boolean;
}

export interface AppendResult {
  /** Stream version after the append. */
  nextExpectedVersion: number;
  /** True when every event id was already in the stream: a retried command, nothing written. */
  alreadyApplied: boolean;
}

/** Where a global reader stands: the last (transaction id, global position) it has read. */
export interface GlobalCheckpoint {
  transactionId: string;
  globalPosition: string;
}

export const START: GlobalCheckpoint = { transactionId: '0', globalPosition: '0' };

interface EventRow {
  event_id: string;
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
  stream_name: string;
  stream_position: string;
  global_position: string;
  transaction_id: string;
  recorded_at: Date | string;
}

// The positions are read as text (bigints), under their own names: an ORDER BY must name the table's columns
// (`es_events.stream_position`), or it sorts the text ("10" before "9").
const COLUMNS =
  'event_id, type, data, metadata, stream_name, stream_position::text, global_position::text, transaction_id::text, recorded_at';

function toRecorded(row: EventRow): RecordedEvent {
  return {
    id: row.event_id,
    type: row.type,
    data: row.data,
    metadata: row.metadata,
    streamName: row.stream_name,
    streamPosition: Number(row.stream_position),
    globalPosition: row.global_position,
    transactionId: row.transaction_id,
    recordedAt: new Date(row.recorded_at),
  };
}

/**
 * Appends events to a stream inside the caller's transaction, so state and events commit together
 * (the event table is the outbox). Concurrency is enforced by the unique (stream, position) key;
 * idempotency by the unique event id: re-appending the same ids to the same stream is a no-op.
 */
export async function appendToStream(
  tx: Tx,
  streamName: string,
  events: NewEvent[],
  expected: ExpectedVersion = 'any',
  opts: AppendOptions = {},
): Promise<AppendResult> {
  if (events.length === 0) throw new Error('appendToStream: no events');
  const ids = events.map((e) => e.id ?? randomUUID());
  // null: the insert reads the stream's version itself.
  let actual: number | null = null;
  if (opts.streamRead && typeof expected === 'number') {
    // The caller read the stream at `expected` in this transaction and found none of the ids in it: a writer
    // that moved the stream since, or an id stored elsewhere, fails the insert below on a unique key instead.
    actual = expected;
  } else if (expected !== 'any' || events.some((e) => e.id !== undefined)) {
    // One round trip for both: the stream's version and which of the ids are stored already.
    const [{ version, existing }] = (await tx.query(
      `select (select coalesce(max(stream_position), 0) from es_events where stream_name = $2)::text as version,
              coalesce((select json_agg(json_build_object('event_id', event_id, 'stream_name', stream_name))
                        from es_events where event_id = any($1::uuid[])), '[]') as existing`,
      [ids, streamName],
    )) as [{ version: string; existing: { event_id: string; stream_name: string }[] }];
    if (existing.length > 0) return retried(tx, streamName, ids, existing);

    actual = Number(version);
    if (expected === 'no_stream' ? actual !== 0 : expected !== 'any' && expected !== actual) {
      throw new ConcurrencyError(streamName, expected, actual);
    }
  }
  // Else an 'any' append of fresh random ids: none can be stored, and there is no version to compare, so
  // nothing is read first (a concurrent writer taking a position still fails the insert on its unique key).

  const ctx = currentContext();
  // The span that recorded the events (tracing): the relay's publish and every consumer's handling are its children.
  const traceparent = traceparentOf(ctx?.trace);
  const metadata = events.map((e) =>
    JSON.stringify({
      ...(ctx ? { correlationId: ctx.correlationId, ...(ctx.userId ? { userId: ctx.userId } : {}) } : {}),
      ...(traceparent ? { [TRACEPARENT]: traceparent } : {}),
      ...e.metadata,
    }),
  );
  // One event goes as plain parameters in VALUES, where Postgres types each by its column: the document is
  // parsed once, by the column's own type (a large document inside a jsonb[] array is escaped by the driver and
  // parsed twice; a 3,000-rate RatesUpdated is ~0.5 MB). A store whose `data` is `json` (the screener's: large
  // documents never queried by content) only validates the text, several times cheaper than building `jsonb`.
  const position = `coalesce($3::bigint, (select coalesce(max(stream_position), 0) from es_events where stream_name = $2))`;
  const sql =
    events.length === 1
      ? `insert into es_events (event_id, stream_name, stream_position, type, data, metadata)
         values ($1, $2, ${position} + 1, $4, $5, $6)
         returning stream_position::text as position`
      : `insert into es_events (event_id, stream_name, stream_position, type, data, metadata)
         select id, $2, ${position} + ord, type, data, meta
         from unnest($1::uuid[], $4::text[], $5::jsonb[], $6::jsonb[]) with ordinality as e(id, type, data, meta, ord)
         returning stream_position::text as position`;
  const one = <T>(values: T[]): T | T[] => (events.length === 1 ? values[0]! : values);
  // A savepoint keeps the caller's transaction usable when a concurrent writer wins the race.
  await tx.query('savepoint es_append');
  try {
    const inserted = await tx.query<{ position: string }>(sql, [
      one(ids),
      streamName,
      actual,
      one(events.map((e) => e.type)),
      one(events.map((e) => JSON.stringify(e.data))),
      one(metadata),
    ]);
    await tx.query('release savepoint es_append');
    return { nextExpectedVersion: Math.max(...inserted.map((r) => Number(r.position))), alreadyApplied: false };
  } catch (err) {
    await tx.query('rollback to savepoint es_append');
    const { code, constraint } = pgError(err);
    if (code === '23505' && constraint === 'es_events_stream_position_key') {
      const [{ version: now } = { version: '0' }] = await tx.query<{ version: string }>(
        'select coalesce(max(stream_position), 0)::text as version from es_events where stream_name = $1',
        [streamName],
      );
      throw new ConcurrencyError(streamName, expected, Number(now));
    }
    if (code === '23505' && constraint === 'es_events_event_id_key') {
      // A concurrent retry of the same command committed first.
      const again = await tx.query<{ event_id: string; stream_name: string }>(
        'select event_id, stream_name from es_events where event_id = any($1::uuid[])',
        [ids],
      );
      return retried(tx, streamName, ids, again);
    }
    throw err;
  }
}

async function retried(
  tx: SqlClient,
  streamName: string,
  ids: string[],
  existing: { event_id: string; stream_name: string }[],
): Promise<AppendResult> {
  const sameStream = existing.filter((r) => r.stream_name === streamName);
  if (sameStream.length !== ids.length) throw new EventIdConflictError(existing.map((r) => r.event_id));
  const [{ version } = { version: '0' }] = await tx.query<{ version: string }>(
    'select coalesce(max(stream_position), 0)::text as version from es_events where stream_name = $1',
    [streamName],
  );
  return { nextExpectedVersion: Number(version), alreadyApplied: true };
}

/** Events to append to one stream at an exact version (see `appendToStreams`). */
export interface StreamAppend {
  streamName: string;
  /** The stream's version the caller read in this transaction; the events take the positions after it. */
  expectedVersion: number;
  events: (NewEvent & { id: string })[];
}

/**
 * Appends to several streams in one statement (a group commit of commands on different streams, each read in
 * this transaction at `expectedVersion`, their ids checked against what was read). Unlike `appendToStream`
 * there is no savepoint: a concurrent writer or an id stored elsewhere fails the statement on a unique key and
 * leaves the caller's transaction aborted, so the caller rolls back and handles the commands one at a time.
 * Metadata is each event's own (the commands came from different requests): no request context is added.
 */
export async function appendToStreams(tx: Tx, appends: StreamAppend[]): Promise<void> {
  const rows = appends.flatMap((a) => a.events.map((e, i) => ({ e, stream: a.streamName, position: a.expectedVersion + i + 1 })));
  if (rows.length === 0) return;
  await tx.query(
    `insert into es_events (event_id, stream_name, stream_position, type, data, metadata)
     select * from unnest($1::uuid[], $2::text[], $3::bigint[], $4::text[], $5::jsonb[], $6::jsonb[])`,
    [
      rows.map((r) => r.e.id),
      rows.map((r) => r.stream),
      rows.map((r) => r.position),
      rows.map((r) => r.e.type),
      rows.map((r) => JSON.stringify(r.e.data)),
      rows.map((r) => JSON.stringify(r.e.metadata ?? {})),
    ],
  );
}

/** Reads several streams in one query, each in order (a stream with no events is absent from the map). */
export async function readStreams(db: SqlClient, streamNames: readonly string[]): Promise<Map<string, RecordedEvent[]>> {
  const rows = await db.query<EventRow>(
    `select ${COLUMNS} from es_events where stream_name = any($1::text[]) order by es_events.stream_name, es_events.stream_position`,
    [streamNames],
  );
  const streams = new Map<string, RecordedEvent[]>();
  for (const row of rows) {
    const e = toRecorded(row);
    const list = streams.get(e.streamName);
    if (list) list.push(e);
    else streams.set(e.streamName, [e]);
  }
  return streams;
}

/** Reads one stream in order, optionally after a position. */
export async function readStream(db: SqlClient, streamName: string, afterPosition = 0): Promise<RecordedEvent[]> {
  const rows = await db.query<EventRow>(
    `select ${COLUMNS} from es_events where stream_name = $1 and stream_position > $2 order by es_events.stream_position`,
    [streamName, afterPosition],
  );
  return rows.map(toRecorded);
}

/**
 * How far a global reader may read: only transactions below the horizon are read, and no transaction below it
 * can still add events to this database.
 * - `'database'` (default): the oldest transaction still running that may belong to this database. Taken from
 *   the statement's own snapshot (`pg_current_snapshot()`: its xmax and its list of running xids), minus the
 *   running xids `pg_stat_activity` places in another database. An xid is dropped only on that positive
 *   evidence: a prepared transaction, a backend that ended after the snapshot, or one whose database is not
 *   shown still holds the reader back (it delays, never skips). A transaction elsewhere on the server never
 *   delays this database's readers.
 * - `'cluster'`: `pg_snapshot_xmin`, the oldest transaction running anywhere on the server. Also correct, but
 *   one long transaction in any database holds every reader back; kept as the relay bench's baseline.
 */
export type ReadHorizon = 'database' | 'cluster';

const HORIZON_SQL: Record<ReadHorizon, string> = {
  // pg_stat_activity is read during execution, after the statement's snapshot was taken (outside a transaction
  // block, as the relay calls it): a backend slot reused by a new transaction while it is read can only show an
  // xid newer than the snapshot, which is not in its xip list. A backend's database never changes, so an xid
  // seen in another database cannot write here. The reader's own transaction (absent from its xip) counts too.
  database: `(select least(
      pg_snapshot_xmax(s.snap),
      (select min(x) from pg_snapshot_xip(s.snap) as x
        where not exists (
          select 1 from pg_stat_activity a
          where a.backend_xid = x::xid
            and a.datid <> (select oid from pg_database where datname = current_database()))),
      pg_current_xact_id_if_assigned())
    from (select pg_current_snapshot() as snap) s)`,
  cluster: 'pg_snapshot_xmin(pg_current_snapshot())',
};

/**
 * Reads events of all streams after a checkpoint, in (transaction id, position) order, and only from
 * transactions below the horizon (see `ReadHorizon`): every transaction of this database below it has ended.
 * A transaction that commits late therefore can never land behind a checkpoint a reader has already passed.
 * Call it outside a transaction block, as the relay does.
 */
export async function readAll(
  db: SqlClient,
  after: GlobalCheckpoint,
  limit = 500,
  horizon: ReadHorizon = 'database',
): Promise<RecordedEvent[]> {
  const rows = await db.query<EventRow>(
    `select ${COLUMNS} from es_events
     where (transaction_id, global_position) > ($1::xid8, $2::bigint)
       and transaction_id < ${HORIZON_SQL[horizon]}
     order by es_events.transaction_id, es_events.global_position
     limit $3`,
    [after.transactionId, after.globalPosition, limit],
  );
  return rows.map(toRecorded);
}

/**
 * Whether committed events after a checkpoint exist. True while `readAll` returns nothing means they wait
 * behind the horizon (a running transaction of this database).
 */
export async function hasEventsAfter(db: SqlClient, after: GlobalCheckpoint): Promise<boolean> {
  const [row] = await db.query<{ pending: boolean }>(
    'select exists (select 1 from es_events where (transaction_id, global_position) > ($1::xid8, $2::bigint)) as pending',
    [after.transactionId, after.globalPosition],
  );
  return row?.pending ?? false;
}

export async function loadCheckpoint(db: SqlClient, name: string): Promise<GlobalCheckpoint> {
  const [row] = await db.query<{ transaction_id: string; global_position: string }>(
    'select transaction_id::text, global_position::text from es_checkpoints where name = $1',
    [name],
  );
  return row ? { transactionId: row.transaction_id, globalPosition: row.global_position } : START;
}

export async function storeCheckpoint(db: SqlClient, name: string, at: GlobalCheckpoint): Promise<void> {
  await db.query(
    `insert into es_checkpoints (name, transaction_id, global_position) values ($1, $2::xid8, $3::bigint)
     on conflict (name) do update set transaction_id = excluded.transaction_id,
       global_position = excluded.global_position, updated_at = now()`,
    [name, at.transactionId, at.globalPosition],
  );
}
