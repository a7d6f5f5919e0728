/**
 * Notification delivery end to end for tests: the alerts stack (screener, portfolios, billing, alerts, gateway)
 * and the delivery service on its own fresh database, all on one bus prefix. The delivery clock is injectable
 * apart from the alerts one (quiet hours are decided on it); `restartDelivery` starts it again on the same
 * database, as a crash and restart would.
 */
import { createLogger } from '@invest/platform';
import { createTestDatabase, testNatsUrl } from '@invest/platform/testing/index';
import { createDeliveryApp, type DeliveryApp, type DeliveryAppOptions } from '@invest/delivery/delivery.app';
import { type AlertsStack, type AlertsStackOptions, startAlertsStack } from './alerts-stack.js';

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
