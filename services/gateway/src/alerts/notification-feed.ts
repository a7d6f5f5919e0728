import { AlertsEventTypes, type BusEvent, decodeAlertsEvent, eventSubject, isUnknownEvent, type NotificationFiredV1 } from '@invest/contracts';
import { type Bus, busSubject, connectBus, type Logger } from '@invest/platform';

/** Receives a firing of the user it listens for. */
export type FiringListener = (firing: NotificationFiredV1) => void;

/**
 * One NATS subscription to `alerts.events.NotificationFired` per gateway, fanned out by user to the open
 * notification streams, which write the firing at once (the event carries what the inbox row shows). Core NATS
 * can lose a message (this connection away, a slow consumer): each stream's backstop read of the alerts inbox
 * sends what did not come this way, so the database stays the source of truth.
 */
export class NotificationFeed {
  private bus: Promise<Bus> | undefined;
  private sub: ReturnType<Bus['nc']['subscribe']> | undefined;
  private readonly listeners = new Map<string, Set<FiringListener>>();

  constructor(private readonly opts: { natsUrl: string; busPrefix: string; logger: Logger }) {}

  private start(): Promise<Bus> {
    this.bus ??= connectBus({ natsUrl: this.opts.natsUrl, name: 'gateway-notification-feed', prefix: this.opts.busPrefix }).then(
      (bus) => {
        this.sub = bus.nc.subscribe(busSubject(bus.prefix, eventSubject('alerts', AlertsEventTypes.NotificationFired)), {
          callback: (err, msg) => {
            if (err) return;
            let event: BusEvent;
            try {
              event = msg.json<BusEvent>();
            } catch {
              return; // Not an event: nothing to hand on.
            }
            this.dispatch(event);
          },
        });
        return bus;
      },
      (err: unknown) => {
        this.bus = undefined;
        throw err;
      },
    );
    return this.bus;
  }

  private dispatch(event: BusEvent): void {
    const userId = (event.data as { userId?: unknown } | null | undefined)?.userId;
    const listeners = typeof userId === 'string' ? this.listeners.get(userId) : undefined;
    // Every firing passes every gateway: only those of a user streaming here are checked against the catalog.
    if (!listeners) return;
    const decoded = decodeAlertsEvent(event);
    if (isUnknownEvent(decoded)) {
      this.opts.logger.warn({ eventId: event.id, reason: decoded.unknownEvent }, 'notification stream: event not understood; the inbox read sends it');
      return;
    }
    // The subscription's subject carries NotificationFired only.
    if (decoded.type !== AlertsEventTypes.NotificationFired) return;
    for (const listener of [...listeners]) listener(decoded.data);
  }

  /**
   * Hands `onFiring` every NotificationFired of the user, until the returned function is called. Resolves once
   * the subscription is in place (a firing after it comes this way); without NATS it resolves anyway and the
   * stream relies on its backstop read.
   */
  async listen(userId: string, onFiring: FiringListener): Promise<() => void> {
    let set = this.listeners.get(userId);
    if (!set) this.listeners.set(userId, (set = new Set()));
    set.add(onFiring);
    const stop = () => {
      set.delete(onFiring);
      if (set.size === 0 && this.listeners.get(userId) === set) this.listeners.delete(userId);
    };
    try {
      const bus = await this.start();
      // The subscription reaches the server before the stream's first read.
      await bus.nc.flush();
    } catch (err) {
      this.opts.logger.warn({ err }, 'notification stream: ALERTS_EVENTS not followed; polling only');
    }
    return stop;
  }

  async close(): Promise<void> {
    this.sub?.unsubscribe();
    const bus = await this.bus?.catch(() => undefined);
    await bus?.close();
  }
}
