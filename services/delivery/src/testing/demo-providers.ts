import { randomBytes } from 'node:crypto';
import type { DemoProviders, RunningDemoProviders } from '@invest/platform/demo/demo-providers';
import { startFakePushService } from './fake-push-service.js';
import { startFakeSmtp } from './fake-smtp.js';
import { startFakeTelegram } from './fake-telegram.js';

/**
 * One delivery channel's stand-in for `npm start` in development. Each channel (Telegram, web push, e-mail)
 * adds one to `standIns` below; it is started only when one of its variables is unset.
 */
export interface DeliveryStandIn {
  /** What it serves, e.g. "Telegram Bot API". */
  description: string;
  /** The variables it fills. */
  variables: readonly string[];
  /** Starts it with the environment of `npm start`; answers `env: {}` when a real provider is configured. */
  start(env: NodeJS.ProcessEnv): Promise<RunningDemoProviders>;
}

/** The token of the development bot (the stand-in takes the one it is started with). */
export const DEV_TELEGRAM_BOT_TOKEN = '100200300:dev-local-telegram-bot-token';

/**
 * Telegram: the Bot API stand-in with a bot `@invest_dev_bot`, a random webhook secret (given to the gateway and
 * delivery alike) unless TELEGRAM_WEBHOOK_SECRET is set. A bot token without TELEGRAM_API_URL is a real bot: the
 * real Bot API goes with it.
 */
const telegram: DeliveryStandIn = {
  description: 'Telegram Bot API',
  variables: ['TELEGRAM_API_URL', 'TELEGRAM_BOT_TOKEN', 'TELEGRAM_WEBHOOK_SECRET'],
  async start(env): Promise<RunningDemoProviders> {
    if (env.TELEGRAM_API_URL || env.TELEGRAM_BOT_TOKEN) return { env: {}, close: () => Promise.resolve() };
    const secret = env.TELEGRAM_WEBHOOK_SECRET ?? randomBytes(24).toString('base64url');
    const fake = await startFakeTelegram({ token: DEV_TELEGRAM_BOT_TOKEN, botUsername: 'invest_dev_bot' });
    return {
      env: { TELEGRAM_API_URL: fake.url, TELEGRAM_BOT_TOKEN: fake.token, TELEGRAM_WEBHOOK_SECRET: secret },
      hint: `Telegram chats: ${fake.pageUrl} (write /start <token> there, or paste the t.me link from the settings)`,
      close: () => fake.close(),
    };
  },
};

/**
 * Web push: the local push service, its certificate trusted by the push sender besides the system CAs (a real
 * browser's subscription still goes to its vendor's push service). Its page subscribes a synthetic browser for a user
 * id through the gateway, as the web client would, and shows what that browser receives, decrypted.
 */
const push: DeliveryStandIn = {
  description: 'Web Push service',
  variables: ['WEB_PUSH_TEST_CA'],
  async start(env): Promise<RunningDemoProviders> {
    const fake = await startFakePushService({ gatewayUrl: `http://127.0.0.1:${env.PORT ?? 3000}` });
    return {
      env: { WEB_PUSH_TEST_CA: fake.ca },
      hint: `Web push: ${fake.pageUrl} (subscribe a synthetic browser for a user id; that user's alerts arrive there, decrypted)`,
      close: () => fake.close(),
    };
  },
};

/**
 * E-mail: the SMTP catcher. Every mail the app sends (confirmations, alerts) lands on its page, where the
 * confirmation link can be followed and the one-click unsubscribe tried; nothing leaves the machine.
 */
const email: DeliveryStandIn = {
  description: 'SMTP catcher',
  variables: ['SMTP_URL'],
  async start(): Promise<RunningDemoProviders> {
    const fake = await startFakeSmtp();
    return {
      env: { SMTP_URL: fake.smtpUrl },
      hint: `E-mail: ${fake.webUrl} (every mail the app sends; bounce@… is refused with 550)`,
      close: () => fake.close(),
    };
  },
};

/** Every channel's stand-in, in the order they start. */
const standIns: DeliveryStandIn[] = [telegram, push, email];

/** Continuation lines of a hint line up under the first in `npm start`'s ready banner. */
const HINT_INDENT = '\n            ';

/**
 * The outside providers of the delivery service that `npm start` runs locally in development: every channel's
 * stand-in whose variables are not all set, on free ports, their variables passed to every service.
 */
export const demoProviders: DemoProviders = {
  description: `${standIns.map((s) => s.description).join(', ')} served locally`,
  variables: standIns.flatMap((s) => s.variables),
  async start(): Promise<RunningDemoProviders> {
    const running: RunningDemoProviders[] = [];
    try {
      for (const s of standIns) {
        if (s.variables.every((v) => process.env[v])) continue;
        running.push(await s.start(process.env));
      }
    } catch (err) {
      await Promise.allSettled(running.map((r) => r.close()));
      throw err;
    }
    const hints = running.flatMap((r) => (r.hint ? [r.hint] : []));
    return {
      env: Object.assign({}, ...running.map((r) => r.env)) as Record<string, string>,
      ...(hints.length ? { hint: hints.join(HINT_INDENT) } : {}),
      close: async () => {
        await Promise.allSettled(running.map((r) => r.close()));
      },
    };
  },
};
