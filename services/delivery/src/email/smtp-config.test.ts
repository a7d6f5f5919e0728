import { describe, expect, it } from 'vitest';
import type { Db } from '@invest/platform/db/database';
import { createLogger } from '@invest/platform/logging/logger';
import { deliveryConfigFrom, deliveryEnvSchema } from '../config/delivery.config.js';
import { createEmailChannel } from './email-channel.js';

const config = (env: Record<string, string>) => deliveryConfigFrom(deliveryEnvSchema.parse(env));
const problems = (env: Record<string, string>) => deliveryEnvSchema.safeParse(env).error?.issues.map((i) => i.message) ?? [];

describe('SMTP_URL and SMTP_FROM', () => {
  it('leaves the e-mail channel off without SMTP_URL', () => {
    expect(config({}).smtp).toBeUndefined();
  });

  it('takes smtp:// and smtps:// URLs, with the default sender', () => {
    expect(config({ SMTP_URL: 'smtp://user:pass@mail.example.org:587' }).smtp).toEqual({ url: 'smtp://user:pass@mail.example.org:587', from: 'Invest tracker <noreply@localhost>' });
    expect(config({ SMTP_URL: 'smtps://mail.example.org:465', SMTP_FROM: 'alerts@example.org' }).smtp).toEqual({ url: 'smtps://mail.example.org:465', from: 'alerts@example.org' });
  });

  it('names the variable of a bad value', () => {
    expect(problems({ SMTP_URL: 'http://mail.example.org' })).toEqual(['SMTP_URL must be an smtp:// or smtps:// URL']);
    expect(problems({ SMTP_URL: 'smtp://mail.example.org', SMTP_FROM: 'Invest tracker' })).toEqual([expect.stringMatching(/^SMTP_FROM must be an address/)]);
  });
});

describe('the e-mail channel without SMTP_URL', () => {
  it('has no sender, says so once at start, and still answers the links of mails sent before', async () => {
    const lines: string[] = [];
    const logger = createLogger('test', 'info', { write: (l: string) => void lines.push(l) });
    const channel = createEmailChannel({ db: {} as Db, logger, publicBaseUrl: 'https://invest.example.org', pollMs: 1000, clock: () => new Date() });
    await channel.start();
    await channel.stop();
    expect(channel.sender).toBeUndefined();
    expect(channel.handler).toBeDefined();
    expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(['email channel off: SMTP_URL is not set']);
  });
});
