import { createHash } from 'node:crypto';
import type { Tx } from '../db/database.js';
import { appendToStream, ConcurrencyError, type ExpectedVersion, readStream } from './event-store.js';

/** A domain event as a decider sees it: a type and plain JSON data (no ids, positions or metadata). */
export interface DomainEvent<Type extends string = string, Data = unknown> {
  type: Type;
  data: Data;
}

/**
 * The pure core of an event-sourced stream (after Emmett's decider). `evolve` folds one event into the
 * state; `decide` answers a command with the events it causes, or throws a domain error (for a rule a
 * client broke, a `ServiceError` such as `ServiceError.conflict`, so it reaches HTTP as-is). Both are
 * plain functions over plain data: no I/O, no clock, no random ids (put those in the command).
 */
export interface Decider<State, Command, Event extends DomainEvent> {
  initialState(): State;
  evolve(state: State, event: Event): State;
  decide(command: Command, state: State): Event | readonly Event[];
}

export interface HandleCommandOptions {
  /**
   * Ids of the events the command produces, in order (e.g. `eventIdFor('payment', paymentId)`). When any
   * of them is already in the stream the command was applied before: nothing is decided or written and the
   * result says `alreadyApplied`. Without them every run appends (random ids).
   */
  eventIds?: readonly string[];
  /** The version the caller saw (an `If-Match`): a stream that moved since fails at once, never retried. */
  expectedVersion?: ExpectedVersion;
  /** Re-reads and re-decides after a version conflict this many times before the error escapes (default 3). */
  retries?: number;
}

export interface CommandResult<State, Event extends DomainEvent> {
  /** State after the command (the current state when nothing was appended). */
  newState: State;
  /** Events this call appended; empty when the command decided nothing or was already applied. */
  newEvents: Event[];
  /** Stream version after the call. */
  nextExpectedVersion: number;
  /** The command's `eventIds` were already in the stream: a retried command, nothing written. */
  alreadyApplied: boolean;
}

const DEFAULT_RETRIES = 3;

/**
 * Runs one command against one stream inside the caller's transaction: reads the stream, folds it with
 * `evolve`, `decide`s, and appends the events at the version it read, so a concurrent writer makes the
 * append fail instead of both deciding on the same state.
 *
 * On a version conflict it re-reads and decides again, up to `retries` times. That is correct in the same
 * transaction only under READ COMMITTED (the default here), where each statement sees what other
 * transactions committed: the conflict is raised after the competing writer committed, so the re-read sees
 * its events, and the failed insert was rolled back to `appendToStream`'s savepoint, so the transaction is
 * still usable. Under REPEATABLE READ or SERIALIZABLE the snapshot is fixed and a re-read would decide on
 * the same stale state, so the `ConcurrencyError` is rethrown at once: the caller must re-run its whole
 * transaction. An escaping `ConcurrencyError` answers 409 `conflict` over RPC.
 */
export async function handleCommand<State, Command, Event extends DomainEvent>(
  tx: Tx,
  streamName: string,
  command: Command,
  decider: Decider<State, Command, Event>,
  opts: HandleCommandOptions = {},
): Promise<CommandResult<State, Event>> {
  const retries = opts.retries ?? DEFAULT_RETRIES;
  const ids = opts.eventIds ? new Set(opts.eventIds) : undefined;
  for (let conflicts = 0; ; ) {
    const stored = await readStream(tx, streamName);
    const version = stored.at(-1)?.streamPosition ?? 0;
    // The stream holds only this decider's events, written through it: the stored type is the decider's.
    const state = stored.reduce((s, e) => decider.evolve(s, { type: e.type, data: e.data } as Event), decider.initialState());
    if (ids && stored.some((e) => ids.has(e.id))) {
      return { newState: state, newEvents: [], nextExpectedVersion: version, alreadyApplied: true };
    }
    if (opts.expectedVersion !== undefined && !versionMatches(opts.expectedVersion, version)) {
      throw new ConcurrencyError(streamName, opts.expectedVersion, version);
    }

    const decided = toArray(decider.decide(command, state));
    if (decided.length === 0) return { newState: state, newEvents: [], nextExpectedVersion: version, alreadyApplied: false };
    if (opts.eventIds && opts.eventIds.length < decided.length) {
      throw new Error(`handleCommand: ${decided.length} events decided but only ${opts.eventIds.length} eventIds given`);
    }

    try {
      const appended = await appendToStream(
        tx,
        streamName,
        decided.map((e, i) => ({ ...(opts.eventIds ? { id: opts.eventIds[i] } : {}), type: e.type, data: e.data })),
        version,
        // Read just above, ids checked: the unique keys catch a concurrent writer or an id stored elsewhere.
        { streamRead: true },
      );
      // A concurrent run of the same command committed its ids first: the next read reports it applied.
      if (appended.alreadyApplied) continue;
      return {
        newState: decided.reduce(decider.evolve, state),
        newEvents: decided,
        nextExpectedVersion: appended.nextExpectedVersion,
        alreadyApplied: false,
      };
    } catch (err) {
      if (!(err instanceof ConcurrencyError) || conflicts >= retries || !(await isReadCommitted(tx))) throw err;
      conflicts += 1;
    }
  }
}

function toArray<T>(value: T | readonly T[]): T[] {
  return Array.isArray(value) ? [...(value as readonly T[])] : [value as T];
}

function versionMatches(expected: ExpectedVersion, actual: number): boolean {
  return expected === 'any' || (expected === 'no_stream' ? actual === 0 : expected === actual);
}

async function isReadCommitted(tx: Tx): Promise<boolean> {
  const [row] = await tx.query<{ level: string }>("select current_setting('transaction_isolation') as level");
  return row?.level === 'read committed';
}

/** Namespace of the ids `eventIdFor` makes (a fixed random UUID; changing it changes every derived id). */
export const EVENT_ID_NAMESPACE = '6f1d6a52-3c4b-4e0e-9a57-2b8f2d1c7e90';

/** An RFC 4122 version 5 UUID: the same name in the same namespace always gives the same id. */
/** Namespaces as bytes: a few constants, each parsed once (event ids are made on every command). */
const namespaceBytes = new Map<string, Buffer>();

export function uuidV5(name: string, namespace: string): string {
  let ns = namespaceBytes.get(namespace);
  if (!ns) {
    ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
    if (ns.length !== 16) throw new Error(`uuidV5: namespace is not a UUID: ${namespace}`);
    if (namespaceBytes.size < 64) namespaceBytes.set(namespace, ns);
  }
  const hash = createHash('sha1').update(ns).update(name, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * A deterministic event id from the parts that identify what happened (e.g. `eventIdFor('PaymentRecorded',
 * paymentId)`), so a retried command appends the same ids and `handleCommand` sees it already applied.
 */
export function eventIdFor(...parts: string[]): string {
  return uuidV5(JSON.stringify(parts), EVENT_ID_NAMESPACE);
}
