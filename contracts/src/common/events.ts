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
