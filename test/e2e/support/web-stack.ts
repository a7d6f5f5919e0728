/**
 * The whole product for browser tests, as `npm start` runs it but in-process: the alerts stack (screener with
 * demo data, portfolios, billing with the local CloudPayments, alerts, the gateway) plus the chat service
 * with the local OpenAI-compatible model, all on one bus prefix and fresh databases. The gateway serves the
 * built web client (web/dist), the development routes and the payment widget stand-in (driving the local
 * CloudPayments), exactly as in development.
 */
import { busName, createLogger } from '@invest/platform';
import { createTestDatabase, testNatsUrl } from '@invest/platform/testing/index';
import { type ChatApp, createChatApp } from '@invest/chat/chat.app';
import { type FakeOpenAi, type FakeScript, startFakeOpenAi } from '@invest/chat/testing/fake-openai';
import { createDeliveryApp, type DeliveryApp, type DeliveryAppOptions } from '@invest/delivery/delivery.app';
import { type AlertsStack, type AlertsStackOptions, startAlertsStack } from './alerts-stack.js';

const OPENAI_KEY = 'sk-test-web-e2e';

export interface WebStack extends AlertsStack {
  chat: ChatApp;
  /** The chat model; tests queue scripts on it. */
  model: FakeOpenAi;
  /** The delivery service (notification settings, channels), when the stack was asked for it. */
  delivery: DeliveryApp | null;
}

export async function startWebStack(
  name: string,
  opts: {
    tickers: string[];
    answer?: FakeScript;
    /** The chat's OPENAI_IDLE_TIMEOUT_MS (default 10 s): longest silence of the model before an answer is failed. */
    chatIdleTimeoutMs?: number;
    /** More gateway options (a Telegram webhook secret). */
    gateway?: AlertsStackOptions['gateway'];
    /**
     * Starts the delivery service too, with these options over the defaults (its own database, the stack's bus,
     * `publicBaseUrl` the gateway's address); a function is called once the gateway listens.
     */
    delivery?: Partial<DeliveryAppOptions> | (() => Partial<DeliveryAppOptions>);
  },
): Promise<WebStack> {
  const model = await startFakeOpenAi({ apiKey: OPENAI_KEY, ...(opts.answer ? { defaultScript: opts.answer } : {}) });
  const stack = await startAlertsStack(name, {
    tickers: opts.tickers,
    // The real clock: a person's browser, not a test, decides when things happen here.
    alerts: { clock: () => new Date() },
    // billing's default prices, which the stack's billing runs with: the stand-in pays what checkout shows.
    provider: { prices: { 'basic-m': '299.00', 'basic-y': '2990.00' }, currency: 'RUB' },
    gateway: { chatHeartbeatMs: 1000, ...opts.gateway },
  });
  const logger = createLogger('test', 'silent');
  const chatDb = await createTestDatabase(`${name}_chat`);
  const chat = await createChatApp({
    databaseUrl: chatDb.url,
    natsUrl: testNatsUrl(),
    busPrefix: stack.busPrefix,
    logger,
    openai: { baseUrl: model.url, apiKey: OPENAI_KEY, connectTimeoutMs: 5000, idleTimeoutMs: opts.chatIdleTimeoutMs ?? 10_000, maxRetries: 0 },
    streamMaxAgeMs: 60_000,
    shutdownDrainMs: 0,
  });
  const deliveryDb = opts.delivery ? await createTestDatabase(`${name}_dlv`) : null;
  const delivery =
    opts.delivery && deliveryDb
      ? await createDeliveryApp({
          databaseUrl: deliveryDb.url,
          natsUrl: testNatsUrl(),
          busPrefix: stack.busPrefix,
          logger,
          publicBaseUrl: stack.base,
          pollMs: 100,
          ...(typeof opts.delivery === 'function' ? opts.delivery() : opts.delivery),
        })
      : null;
  const closeRest = stack.close;
  return Object.assign(stack, {
    chat,
    model,
    delivery,
    async close() {
      await stack.gw.close();
      await delivery?.close();
      await deliveryDb?.drop();
      await chat.close();
      await model.close();
      await stack.bus.jsm.streams.delete(busName(stack.busPrefix, 'CHAT_STREAMS')).catch(() => undefined);
      await closeRest();
      await chatDb.drop();
    },
  });
}
