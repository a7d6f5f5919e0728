import { z } from 'zod';

/** One JetStream stream per producing service; subjects `<ctx>.events.<EventType>[.<id>]`. */
export const EventStreams = {
  market: { stream: 'MARKET_EVENTS', root: 'market.events' },
  portfolios: { stream: 'PORTFOLIOS_EVENTS', root: 'portfolios.events' },
  alerts: { stream: 'ALERTS_EVENTS', root: 'alerts.events' },
  billing: { stream: 'BILLING_EVENTS', root: 'billing.events' },
  chat: { stream: 'CHAT_EVENTS', root: 'chat.events' },
} as const;
export type EventContext = keyof typeof EventStreams;

/** The subject an event is published on (without the environment's bus prefix). */
export function eventSubject(ctx: EventContext, type: string, id?: string | number): string {
  return `${EventStreams[ctx].root}.${type}${id === undefined ? '' : `.${id}`}`;
}

/** What goes on the bus for every recorded event; `data` is validated by the event's own schema. */
export const busEventSchema = z.object({
  id: z.string().uuid(),
  type: z.string(),
  streamName: z.string(),
  streamPosition: z.number().int(),
  recordedAt: z.string(),
  data: z.unknown(),
  metadata: z.record(z.string(), z.unknown()),
});
export type BusEvent<D = unknown> = Omit<z.infer<typeof busEventSchema>, 'data'> & { data: D };

/*
 * Typed integration events. Each stream has a catalog: event type name → the schema of every version of
 * its data this release reads (one version: its schema; several: `z.discriminatedUnion('version', [...])`).
 * The version is the `version` field of the data (`version: z.literal(n)`); the type name never carries it.
 */

/** Event type name → schema of the data versions this release understands. */
export type EventCatalog = Record<string, z.ZodType<{ version: number }>>;

/** A bus event of type `T` whose data passed its schema. */
export type TypedBusEvent<T extends string, D> = Omit<BusEvent<D>, 'type'> & { type: T };

/** The discriminated union (on `type`) of every event of a catalog: `switch (event.type)` narrows `data`. */
export type EventOf<C extends EventCatalog> = { [T in keyof C & string]: TypedBusEvent<T, z.infer<C[T]>> }[keyof C & string];

/** `{type, data}` of every event of a catalog, without the envelope: what an event-sourced decider decides. */
export type EventDataOf<C extends EventCatalog> = { [T in keyof C & string]: { type: T; data: z.infer<C[T]> } }[keyof C & string];

/** What `decodeEvent` returns for an event this release does not understand (unknown type or version). */
export interface UnknownEvent {
  readonly unknownEvent: string;
}

export function isUnknownEvent(value: unknown): value is UnknownEvent {
  return typeof value === 'object' && value !== null && typeof (value as UnknownEvent).unknownEvent === 'string';
}

/**
 * Checks a bus event against a stream's catalog: the typed event when its type is in the catalog and its
 * data parses with a version this release reads, otherwise an `UnknownEvent` saying why. Data that fails
 * its schema is "not understood" as well (a later release may read it), never silently dropped.
 */
export function decodeEvent<C extends EventCatalog>(catalog: C, event: BusEvent): EventOf<C> | UnknownEvent {
  if (!Object.hasOwn(catalog, event.type)) return { unknownEvent: `unknown type ${event.type}` };
  const parsed = catalog[event.type]!.safeParse(event.data);
  if (!parsed.success) {
    const version = (event.data as { version?: unknown } | null)?.version;
    const issues = parsed.error.issues
      .slice(0, 3)
      .map((i) => `${i.path.join('.') || '(data)'}: ${i.message}`)
      .join('; ');
    return { unknownEvent: `${event.type} version ${String(version)} not understood (${issues})` };
  }
  return { ...event, data: parsed.data } as EventOf<C>;
}

/** `{ Name: 'Name', ... }` for every type of a catalog: the type-name constants of a stream. */
export function eventTypeNames<C extends EventCatalog>(catalog: C): { readonly [T in keyof C & string]: T } {
  return Object.fromEntries(Object.keys(catalog).map((t) => [t, t])) as { [T in keyof C & string]: T };
}

/**
 * Makes a `switch` over a union exhaustive at compile time: the `default:` branch calls it, and a case
 * left out makes `value` not `never`, which does not type-check. At run time it throws.
 */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`unexpected ${what}: ${JSON.stringify(value)}`);
}
