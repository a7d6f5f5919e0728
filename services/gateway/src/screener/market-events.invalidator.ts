import { EventStreams, mayChangeShareScreener } from '@invest/contracts';
import type { Logger } from '@invest/platform/logging/logger';
import { busSubject } from '@invest/platform/messaging/bus-prefix';

/** What the invalidator needs of a NATS connection (nats.js' NatsConnection has it). */
export interface SubscribableConnection {
  subscribe(subject: string, opts: { callback: (err: Error | null, msg: { subject: string; headers?: { get(key: string): string } | undefined }) => void }): { unsubscribe(): void };
  status(): AsyncIterable<{ type: string }>;
  isClosed(): boolean;
}

/**
 * Calls `onChange` whenever the share screener's data may have changed: on every MARKET_EVENTS event (`RatesUpdated`,
 * `AssetUpdated`, `AssetDeleted`) but a custom asset's (`mayChangeShareScreener`, by the event's stream header:
 * any user can write those at will, and they are never listed), heard through a core NATS subscription to `market.events.>` on the
 * gateway's own connection (no consumer state: every gateway instance hears every event), and after a
 * reconnect, since events published while disconnected were missed.
 */
export class MarketEventsInvalidator {
  private nc: SubscribableConnection | undefined;
  private subscription: { unsubscribe(): void } | undefined;

  constructor(
    private readonly opts: {
      /** The current connection, or undefined when there is none yet. */
      connection: () => SubscribableConnection | undefined;
      busPrefix: string;
      onChange: () => void;
      logger: Logger;
    },
  ) {}

  /**
   * Whether changes are heard now. Subscribes on the current connection the first time it sees it (cheap
   * otherwise: call it before each use of what it invalidates). The subscription reaches the server before
   * any request sent after this call on the same connection, so no change is missed after it.
   */
  live(): boolean {
    let nc: SubscribableConnection | undefined;
    try {
      nc = this.opts.connection();
    } catch {
      return false;
    }
    if (!nc || nc.isClosed()) return false;
    if (nc !== this.nc) this.subscribe(nc);
    return true;
  }

  close(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
    this.nc = undefined;
  }

  private subscribe(nc: SubscribableConnection): void {
    this.subscription?.unsubscribe();
    this.nc = nc;
    const subject = busSubject(this.opts.busPrefix, `${EventStreams.market.root}.>`);
    this.subscription = nc.subscribe(subject, {
      callback: (err, msg) => {
        if (!err && !mayChangeShareScreener(msg.headers)) return;
        this.opts.onChange();
        if (err) this.opts.logger.warn({ err, subject }, 'market events subscription failed; public screener cache cleared');
        else this.opts.logger.debug({ subject: msg.subject }, 'market data changed; public screener cache cleared');
      },
    });
    // Whatever was published while the connection was down never reached us.
    void (async () => {
      for await (const s of nc.status()) if (s.type === 'reconnect') this.opts.onChange();
    })().catch(() => undefined);
    // A new connection (the first, or one after the old one closed) starts from nothing cached.
    this.opts.onChange();
  }
}
