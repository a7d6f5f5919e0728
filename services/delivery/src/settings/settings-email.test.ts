import type { Db } from '@invest/platform/db/database';
import { createLogger } from '@invest/platform/logging/logger';
import { useTestDatabase } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmailConfirmations } from '../email/email-confirmations.job.js';
import { EmailLinksService } from '../email/email-links.service.js';
import { SmtpClient } from '../email/smtp.client.js';
import { migrations } from '../migrations/index.js';
import { type FakeSmtp, startFakeSmtp } from '../testing/fake-smtp.js';
import { SettingsService } from './settings.service.js';

const BASE = 'https://invest.example.org';
let db: Db;
useTestDatabase('settings_email', migrations, (d) => (db = d));

let catcher: FakeSmtp;
let smtp: SmtpClient;
const logger = createLogger('test', 'silent');
const start = new Date('2026-04-01T10:00:00Z');
const clock = { now: start };
const at = (minutes: number) => (clock.now = new Date(start.getTime() + minutes * 60_000));

beforeAll(async () => {
  catcher = await startFakeSmtp();
  smtp = new SmtpClient({ url: catcher.smtpUrl, from: 'Invest tracker <noreply@invest.example.org>' }, logger);
});
afterAll(async () => {
  smtp?.close();
  await catcher?.close();
});

const settings = () => new SettingsService({ db, clock: () => clock.now });
const confirmations = () => new EmailConfirmations({ db, smtp, publicBaseUrl: BASE, pollMs: 50, clock: () => clock.now, logger });
const links = () => new EmailLinksService({ db, clock: () => clock.now });
const mailsTo = (address: string) => catcher.messages.filter((m) => m.envelope.to.includes(address));
const tokenOf = (text: string | null) => /\/api\/email\/confirm\?token=([A-Za-z0-9_-]+)/.exec(text ?? '')?.[1];
const unsubscribeToken = async (userId: string) => (await db.query<{ unsubscribe_token: string }>('select unsubscribe_token from email_addresses where user_id = $1', [userId]))[0]!.unsubscribe_token;

describe('saving the same unconfirmed address again', () => {
  it('sends a new confirmation link once the last one is 10 minutes old, never for a confirmed address', async () => {
    at(0);
    await settings().put('u-again', { email: 'anna@example.net', language: 'en' });
    expect(await confirmations().runOnce()).toMatchObject({ sent: 1 });
    const first = tokenOf((await catcher.waitFor((m) => m.envelope.to.includes('anna@example.net'))).text)!;
    const unsubscribe = await unsubscribeToken('u-again');

    // The settings screen saves the address with every other field: no new mail within 10 minutes.
    at(10);
    await settings().put('u-again', { email: 'anna@example.net', time_zone: 'Europe/Berlin' });
    expect(await confirmations().runOnce()).toMatchObject({ sent: 0 });
    expect(mailsTo('anna@example.net')).toHaveLength(1);

    // Later (the mail lost, or its link expired): saved again, a new link; the old one no longer confirms.
    at(11);
    await settings().put('u-again', { email: 'anna@example.net' });
    expect(await confirmations().runOnce()).toMatchObject({ sent: 1 });
    const second = tokenOf((await catcher.waitFor((m) => m.envelope.to.includes('anna@example.net') && !m.text?.includes(first))).text)!;
    expect(second).not.toBe(first);
    expect(await unsubscribeToken('u-again')).toBe(unsubscribe);
    expect(await links().confirm({ token: first })).toEqual({ data: { status: 'invalid', language: null } });
    expect(await links().confirm({ token: second })).toEqual({ data: { status: 'confirmed', language: 'en' } });

    // Confirmed: saving it again, however much later, sends nothing and keeps it confirmed.
    at(60 * 24 * 30);
    const view = await settings().put('u-again', { email: 'anna@example.net' });
    expect(view.data.email).toEqual({ address: 'anna@example.net', confirmed: true });
    expect(await confirmations().runOnce()).toMatchObject({ sent: 0 });
    expect(mailsTo('anna@example.net')).toHaveLength(2);
  });
});
