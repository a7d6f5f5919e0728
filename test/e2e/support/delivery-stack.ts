/**
 * Notification delivery end to end for tests: the alerts stack (screener, portfolios, billing, alerts, gateway)
 * and the delivery service on its own fresh database, all on one bus prefix. The delivery clock is injectable
 * apart from the alerts one (quiet hours are decided on it); `restartDelivery` starts it again on the same
 * database, as a crash and restart would.
 */
import { createLogger, type SqlClient } from '@invest/platform';
import { createTestDatabase, testNatsUrl } from '@invest/platform/testing/index';
import { type ChannelSender, createDeliveryApp, type DeliveryApp, type DeliveryAppOptions, type OutgoingMessage, type SendResult } from '@invest/delivery/delivery.app';
import { type AlertsStack, type AlertsStackOptions, OPENING_RATES, startAlertsStack } from './alerts-stack.js';

/** The alerts stack's opening prices (SBER 100, GAZP 200, LKOH 300), which delivery tests move from. */
export const OPENING_RATES_FOR_DELIVERY = OPENING_RATES.map((r) => ({ ticker: r.ticker, rate: r.rate ?? 0, change: r.change }));

export interface DeliveryStack extends AlertsStack {
  delivery: DeliveryApp;
  /** The delivery service's clock: the real time while `now` is null (the default). */
  deliveryClock: { now: Date | null };
  /** The options delivery was started with (its database URL, bus prefix). */
  deliveryOptions: DeliveryAppOptions;
  /** Closes the delivery service and starts it again with the same options and `over`. */
  restartDelivery(over?: Partial<DeliveryAppOptions>): Promise<DeliveryApp>;
}

export interface DeliveryStackOptions extends AlertsStackOptions {
  delivery?: Partial<DeliveryAppOptions>;
}

export async function startDeliveryStack(name: string, opts: DeliveryStackOptions): Promise<DeliveryStack> {
  const alerts = await startAlertsStack(name, opts);
  const db = await createTestDatabase(`${name}_dlv`).catch(async (err: unknown) => {
    await alerts.close();
    throw err;
  });
  const deliveryClock: { now: Date | null } = { now: null };
  const deliveryOptions: DeliveryAppOptions = {
    databaseUrl: db.url,
    natsUrl: testNatsUrl(),
    busPrefix: alerts.busPrefix,
    logger: createLogger('test', 'silent'),
    clock: () => deliveryClock.now ?? new Date(),
    pollMs: 100,
    groupWindowMs: 300,
    rpcTimeoutMs: 5000,
    ...opts.delivery,
  };
  let delivery: DeliveryApp;
  try {
    delivery = await createDeliveryApp(deliveryOptions);
  } catch (err) {
    await alerts.close();
    await db.drop();
    throw err;
  }
  const stack: DeliveryStack = {
    ...alerts,
    delivery,
    deliveryClock,
    deliveryOptions,
    async restartDelivery(over: Partial<DeliveryAppOptions> = {}) {
      await stack.delivery.close();
      stack.delivery = await createDeliveryApp({ ...deliveryOptions, ...over });
      return stack.delivery;
    },
    async close() {
      await stack.delivery.close();
      await alerts.close();
      await db.drop();
    },
  };
  return stack;
}

/** A scripted answer of the test channel; `takesMs`: how long the provider takes to give it. */
export type ScriptedResult = SendResult & { takesMs?: number };

/**
 * A channel for tests, registered through the app options (`delivery: { senders: [recorder] }`): each linked user
 * has one address, every send is recorded, and a test scripts the outcomes of the next sends of an address.
 */
export class RecordingSender implements ChannelSender {
  /** Every call of `send`, in order, with what it answered. */
  readonly calls: { address: string; message: OutgoingMessage; result: SendResult; at: number }[] = [];
  readonly permanentFailures: { userId: string; address: string; reason: string }[] = [];
  private readonly linked = new Map<string, string>();
  private readonly scripted = new Map<string, ScriptedResult[]>();

  constructor(readonly channel: ChannelSender['channel'] = 'telegram') {}

  /** Gives the user an address on this channel (`rec-<user>`) and returns it. */
  link(userId: string): string {
    const address = `rec-${userId}`;
    this.linked.set(userId, address);
    return address;
  }

  /** The next sends to `address` answer these, in order (each after `takesMs`, if given); then `sent` again. */
  script(address: string, ...results: ScriptedResult[]): void {
    this.scripted.set(address, [...(this.scripted.get(address) ?? []), ...results]);
  }

  /** Messages the provider accepted for `address`. */
  sentTo(address: string): OutgoingMessage[] {
    return this.calls.filter((c) => c.address === address && c.result.outcome === 'sent').map((c) => c.message);
  }

  addresses(_db: SqlClient, userIds: readonly string[]): Promise<Map<string, string[]>> {
    return Promise.resolve(new Map(userIds.flatMap((id) => (this.linked.has(id) ? [[id, [this.linked.get(id)!]] as const] : []))));
  }

  async send(address: string, message: OutgoingMessage): Promise<SendResult> {
    const { takesMs, ...result }: ScriptedResult = this.scripted.get(address)?.shift() ?? { outcome: 'sent', providerId: `msg-${this.calls.length + 1}` };
    this.calls.push({ address, message, result, at: Date.now() });
    if (takesMs) await new Promise((r) => setTimeout(r, takesMs));
    return result;
  }

  onPermanentFailure(_db: SqlClient, userId: string, address: string, reason: string): Promise<void> {
    this.permanentFailures.push({ userId, address, reason });
    return Promise.resolve();
  }
}
