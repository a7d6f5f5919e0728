import { describe, expect, it } from 'vitest';
import { deliveryConfigFrom, deliveryEnvSchema } from '../config/delivery.config.js';

const load = (env: Record<string, string>) => deliveryEnvSchema.safeParse(env);

describe('the Telegram variables', () => {
  it('leave the channel off without a token, on the real Bot API by default', () => {
    const env = load({});
    expect(env.success).toBe(true);
    expect(deliveryConfigFrom(env.data!).telegram).toBeUndefined();
    expect(env.data!.TELEGRAM_API_URL).toBe('https://api.telegram.org');
  });

  it('need a webhook secret with a token', () => {
    const env = load({ TELEGRAM_BOT_TOKEN: '123456:ABC-def_1' });
    expect(env.success).toBe(false);
    expect(env.error!.issues.map((i) => [i.path.join('.'), i.message])).toContainEqual(['TELEGRAM_WEBHOOK_SECRET', 'TELEGRAM_WEBHOOK_SECRET is required when TELEGRAM_BOT_TOKEN is set']);
  });

  it('refuse a secret Telegram would not send back, or too short to guess at', () => {
    for (const secret of ['short', 'has spaces in it, and more', 'ü'.repeat(20)]) {
      expect(load({ TELEGRAM_BOT_TOKEN: '123456:ABC', TELEGRAM_WEBHOOK_SECRET: secret }).success).toBe(false);
    }
  });

  it('give the channel its API root without a trailing slash', () => {
    const env = load({ TELEGRAM_BOT_TOKEN: '123456:ABC', TELEGRAM_WEBHOOK_SECRET: 's'.repeat(32), TELEGRAM_API_URL: 'http://127.0.0.1:8081/' });
    expect(deliveryConfigFrom(env.data!).telegram).toEqual({ apiUrl: 'http://127.0.0.1:8081', botToken: '123456:ABC', webhookSecret: 's'.repeat(32), timeoutMs: 10_000 });
  });
});
