import { eventSubject } from '@invest/contracts';
import { type Bus, busSubject, connectBus, type Logger } from '@invest/platform';

/** The gateway's follower of NotificationFired (ALERTS_EVENTS), waking the SSE streams of the user. */
export const NOTIFICATION_FEED = Symbol('NOTIFICATION_FEED');

/**
 * One NATS subscription to `alerts.events.NotificationFired` per gateway, fanned out by user to the open
 * notification streams. It only wakes a stream: the stream then reads the alerts inbox after the last id it
 * sent, so the database stays the source of truth, and a message lost on the way (core NATS, or this
 * connection away) is caught by the stream's slow backstop poll.
 */
export class NotificationFeed {
  private bus: Promise<Bus> | undefined;
  private sub: ReturnType<Bus['nc']['subscribe']> | undefined;
  private readonly listeners = new Map<string, Set<() => void>>();

  constructor(private readonly opts: { natsUrl: string; busPrefix: string; logger: Logger }) {}

  private start(): Promise<Bus> {
    this.bus ??= connectBus({ natsUrl: this.opts.natsUrl, name: 'gateway-notification-feed', prefix: this.opts.busPrefix }).then(
      (bus) => {
        this.sub = bus.nc.subscribe(busSubject(bus.prefix, eventSubject('alerts', 'NotificationFired')), {
          callback: (err, msg) => {
            if (err) return;
            try {
              const userId = msg.json<{ data?: { userId?: unknown } }>().data?.userId;
              if (typeof userId === 'string') for (const wake of this.listeners.get(userId) ?? []) wake();
            } catch {
              // Not an event: nothing to wake.
            }
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

  /**
   * Calls `wake` whenever a notification of the user fires, until the returned function is called. Resolves
   * once the subscription is in place (a firing after it wakes the stream); without NATS it resolves anyway
   * and the stream relies on its poll.
   */
  async listen(userId: string, wake: () => void): Promise<() => void> {
    let set = this.listeners.get(userId);
    if (!set) this.listeners.set(userId, (set = new Set()));
    set.add(wake);
    const stop = () => {
      set.delete(wake);
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
