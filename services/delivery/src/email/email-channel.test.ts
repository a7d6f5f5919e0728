import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '@invest/platform/db/database';
import { createLogger } from '@invest/platform/logging/logger';
import { useTestDatabase } from '@invest/platform/testing/index';
import type { OutgoingMessage } from '../channels/channel.js';
import { migrations } from '../migrations/index.js';
import { type FakeSmtp, startFakeSmtp } from '../testing/fake-smtp.js';
import { EmailConfirmations } from './email-confirmations.job.js';
import { EmailLinksService } from './email-links.service.js';
import { createEmailSender } from './email.sender.js';
import { SmtpClient } from './smtp.client.js';

const BASE = 'https://invest.example.org';
let db: Db;
useTestDatabase('email_channel', migrations, (d) => (db = d));

let catcher: FakeSmtp;
let smtp: SmtpClient;
const logLines: string[] = [];
const logger = createLogger('test', 'warn', { write: (line: string) => void logLines.push(line) });
const clock = { now: new Date('2026-03-02T10:00:00Z') };

beforeAll(async () => {
  catcher = await startFakeSmtp();
  smtp = new SmtpClient({ url: catcher.smtpUrl, from: 'Invest tracker <noreply@invest.example.org>' }, logger);
});
afterAll(async () => {
  smtp?.close();
  await catcher?.close();
});
beforeEach(() => {
  catcher.clear();
  logLines.length = 0;
});

/** An address as the settings PUT stores it: unconfirmed, no confirmation sent yet. */
async function addAddress(userId: string, address: string, language: 'ru' | 'en' = 'ru'): Promise<string> {
  const token = `unsub-${userId}-0123456789abcdef`;
  await db.query('insert into settings (user_id, language) values ($1, $2) on conflict (user_id) do update set language = excluded.language', [userId, language]);
  await db.query(
    `insert into email_addresses (user_id, address, unsubscribe_token) values ($1, $2, $3)
     on conflict (user_id) do update set address = excluded.address, unsubscribe_token = excluded.unsubscribe_token, confirm_token_hash = null, confirm_sent_at = null, confirmed_at = null`,
    [userId, address, token],
  );
  return token;
}

function message(userId: string, over: Partial<OutgoingMessage> = {}): OutgoingMessage {
  return {
    userId,
    language: 'en',
    title: 'LKOH +5.2 %: 2 notifications <b>',
    lines: ['LKOH rose above 7 000 <script>alert(1)</script>', 'Tom & "Jerry" \'quoted\''],
    url: `${BASE}/notifications`,
    digest: false,
    firings: [],
    ...over,
  };
}

/** A header's lines as sent, unfolded (a long one is folded onto continuation lines, RFC 5322 §2.2.3). */
const header = (lines: { key: string; line: string }[], key: string) => lines.filter((h) => h.key === key).map((h) => h.line.replace(/\r?\n(?=[ \t])/g, ''));

describe('confirming an address', () => {
  const confirmations = () => new EmailConfirmations({ db, smtp, publicBaseUrl: BASE, pollMs: 50, clock: () => clock.now, logger });
  const links = () => new EmailLinksService({ db, clock: () => clock.now });
  const tokenOf = (text: string | null) => /\/api\/email\/confirm\?token=([A-Za-z0-9_-]+)/.exec(text ?? '')?.[1];

  it('sends a new address one confirmation mail in the user’s language, and its link confirms it', async () => {
    await addAddress('u-confirm', 'anna@example.net', 'en');
    expect(await confirmations().runOnce()).toMatchObject({ sent: 1, refused: 0, waiting: false });
    const mail = await catcher.waitFor((m) => m.envelope.to.includes('anna@example.net'));
    expect(mail.subject).toBe('Confirm your address for Invest tracker notifications');
    const token = tokenOf(mail.text);
    expect(token).toBeDefined();
    expect(mail.html).toContain(`${BASE}/api/email/confirm?token=${token}`);
    const [row] = await db.query<{ confirm_sent_at: Date | null; confirm_token_hash: string }>('select confirm_sent_at, confirm_token_hash from email_addresses where user_id = $1', ['u-confirm']);
    expect(row!.confirm_sent_at).not.toBeNull();
    // Stored hashed only.
    expect(row!.confirm_token_hash).not.toContain(token);

    // Sent once: the next round finds nothing.
    expect(await confirmations().runOnce()).toMatchObject({ sent: 0 });
    expect(catcher.messages).toHaveLength(1);

    expect(await links().confirm({ token })).toEqual({ data: { status: 'confirmed', language: 'en' } });
    const [after] = await db.query<{ confirmed_at: Date | null }>('select confirmed_at from email_addresses where user_id = $1', ['u-confirm']);
    expect(after!.confirmed_at).not.toBeNull();
    // Followed again (or fetched first by a scanner): still confirmed.
    expect(await links().confirm({ token })).toEqual({ data: { status: 'confirmed', language: 'en' } });
  });

  it('writes the Russian mail for a Russian user', async () => {
    await addAddress('u-ru', 'ivan@example.net', 'ru');
    await confirmations().runOnce();
    const mail = await catcher.waitFor((m) => m.envelope.to.includes('ivan@example.net'));
    expect(mail.subject).toBe('Подтвердите адрес для уведомлений Invest tracker');
    expect(mail.text).toContain('Ссылка действует 7 дней');
  });

  it('refuses an unknown token, an expired one, and the token of an address changed since', async () => {
    expect(await links().confirm({ token: 'no-such-token-0123456789' })).toEqual({ data: { status: 'invalid', language: null } });

    await addAddress('u-late', 'late@example.net', 'en');
    await confirmations().runOnce();
    const late = tokenOf((await catcher.waitFor((m) => m.envelope.to.includes('late@example.net'))).text)!;
    const was = clock.now;
    clock.now = new Date(was.getTime() + 8 * 24 * 3600_000);
    try {
      expect(await links().confirm({ token: late })).toEqual({ data: { status: 'expired', language: 'en' } });
    } finally {
      clock.now = was;
    }

    await addAddress('u-change', 'old@example.net');
    await confirmations().runOnce();
    const old = tokenOf((await catcher.waitFor((m) => m.envelope.to.includes('old@example.net'))).text)!;
    await addAddress('u-change', 'new@example.net');
    expect(await links().confirm({ token: old })).toEqual({ data: { status: 'invalid', language: null } });
    const [row] = await db.query<{ confirmed_at: Date | null }>('select confirmed_at from email_addresses where user_id = $1', ['u-change']);
    expect(row!.confirmed_at).toBeNull();
    // The new address gets its own mail.
    await confirmations().runOnce();
    await catcher.waitFor((m) => m.envelope.to.includes('new@example.net'));
  });

  it('records an address the server refuses for good as the e-mail failure, and does not send again', async () => {
    await addAddress('u-bounce-confirm', 'bounce-confirm@example.net');
    expect(await confirmations().runOnce()).toMatchObject({ sent: 0, refused: 1 });
    const [failure] = await db.query<{ reason: string }>("select reason from delivery_failures where user_id = $1 and channel = 'email'", ['u-bounce-confirm']);
    expect(failure!.reason).toMatch(/^550 /);
    expect(await confirmations().runOnce()).toMatchObject({ refused: 0 });
    expect(catcher.refusals.filter((r) => r.address === 'bounce-confirm@example.net')).toHaveLength(1);
  });

  it('keeps an address the server asks to try later, and sends once it takes it', async () => {
    catcher.refuse('later@example.net', 450);
    await addAddress('u-later', 'later@example.net');
    expect(await confirmations().runOnce()).toMatchObject({ sent: 0, waiting: true });
    catcher.allow('later@example.net');
    expect(await confirmations().runOnce()).toMatchObject({ sent: 1 });
    await catcher.waitFor((m) => m.envelope.to.includes('later@example.net'));
  });
});

describe('the e-mail sender', () => {
  const sender = () => createEmailSender({ db, smtp, publicBaseUrl: BASE, clock: () => clock.now });

  async function confirmed(userId: string, address: string): Promise<string> {
    const token = await addAddress(userId, address);
    await db.query('update email_addresses set confirm_sent_at = now(), confirmed_at = now() where user_id = $1', [userId]);
    return token;
  }

  it('has no address for an unconfirmed one', async () => {
    await addAddress('u-unconfirmed', 'wait@example.net');
    expect((await sender().addresses(db, ['u-unconfirmed'])).get('u-unconfirmed')).toBeUndefined();
    expect((await sender().addresses(db, ['u-nobody'])).get('u-nobody')).toBeUndefined();
  });

  it('sends multipart/alternative with the one-click unsubscribe headers and every text escaped', async () => {
    const token = await confirmed('u-send', 'reader@example.net');
    expect((await sender().addresses(db, ['u-send'])).get('u-send')).toEqual(['reader@example.net']);
    const result = await sender().send('reader@example.net', message('u-send'));
    expect(result).toMatchObject({ outcome: 'sent', providerId: expect.stringMatching(/^<.+@.+>$/) });
    const mail = await catcher.waitFor((m) => m.envelope.to.includes('reader@example.net'));

    expect(header(mail.headerLines, 'list-unsubscribe')).toEqual([`List-Unsubscribe: <${BASE}/api/email/unsubscribe/${token}>`]);
    expect(header(mail.headerLines, 'list-unsubscribe-post')).toEqual(['List-Unsubscribe-Post: List-Unsubscribe=One-Click']);
    expect(header(mail.headerLines, 'content-type')[0]).toMatch(/^Content-Type: multipart\/alternative;/);
    expect(mail.raw).toMatch(/Content-Type: text\/plain; charset=utf-8[\s\S]*Content-Type: text\/html; charset=utf-8/);
    expect(mail.subject).toBe('LKOH +5.2 %: 2 notifications <b>');
    expect(mail.from).toBe('"Invest tracker" <noreply@invest.example.org>');

    expect(mail.text).toContain('LKOH rose above 7 000 <script>alert(1)</script>');
    expect(mail.text).toContain(`Open in Invest tracker: ${BASE}/notifications`);
    expect(mail.text).toContain(`${BASE}/api/email/unsubscribe/${token}`);
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).not.toContain('<b>');
    expect(mail.html).toContain('LKOH rose above 7 000 &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(mail.html).toContain('Tom &amp; &quot;Jerry&quot; &#39;quoted&#39;');
    expect(mail.html).toContain(`href="${BASE}/notifications"`);
  });

  it('makes a 5xx for the recipient permanent and stops the address (kept), a 4xx a retry', async () => {
    await confirmed('u-550', 'gone@example.net');
    catcher.refuse('gone@example.net', 550, '5.1.1 No such user');
    const permanent = await sender().send('gone@example.net', message('u-550'));
    expect(permanent).toEqual({ outcome: 'permanent', reason: '550 5.1.1 No such user' });
    await sender().onPermanentFailure!(db, 'u-550', 'gone@example.net', '550 5.1.1 No such user');
    expect((await sender().addresses(db, ['u-550'])).get('u-550')).toBeUndefined();
    const [row] = await db.query<{ address: string }>('select address from email_addresses where user_id = $1', ['u-550']);
    expect(row!.address).toBe('gone@example.net');

    await confirmed('u-450', 'full@example.net');
    catcher.refuse('full@example.net', 452, '4.2.2 Mailbox full');
    expect(await sender().send('full@example.net', message('u-450'))).toEqual({ outcome: 'retry', reason: '452 4.2.2 Mailbox full' });
    expect(catcher.messages).toHaveLength(0);
  });

  it('does not send to an address changed since the message was queued for it', async () => {
    await confirmed('u-moved', 'first@example.net');
    await db.query("update email_addresses set address = 'second@example.net', confirmed_at = null where user_id = $1", ['u-moved']);
    expect(await sender().send('first@example.net', message('u-moved'))).toMatchObject({ outcome: 'permanent' });
    expect(catcher.messages).toHaveLength(0);
  });

  it('retries when the server is unreachable', async () => {
    await confirmed('u-down', 'down@example.net');
    const down = await startFakeSmtp();
    const url = down.smtpUrl;
    await down.close();
    const client = new SmtpClient({ url, from: 'noreply@example.org' }, logger);
    try {
      const result = await createEmailSender({ db, smtp: client, publicBaseUrl: BASE, clock: () => clock.now }).send('down@example.net', message('u-down'));
      expect(result).toMatchObject({ outcome: 'retry', reason: expect.stringMatching(/ECONNECTION|ESOCKET|ECONNREFUSED/) });
    } finally {
      client.close();
    }
  });

  it('retries a refused login with a loud error, never a permanent failure of the user', async () => {
    await confirmed('u-auth', 'auth@example.net');
    const guarded = await startFakeSmtp({ auth: { user: 'app', pass: 'right' } });
    const client = new SmtpClient({ url: guarded.smtpUrl.replace('app:right@', 'app:wrong@'), from: 'noreply@example.org' }, logger);
    try {
      const result = await createEmailSender({ db, smtp: client, publicBaseUrl: BASE, clock: () => clock.now }).send('auth@example.net', message('u-auth'));
      expect(result).toMatchObject({ outcome: 'retry', reason: expect.stringContaining('535') });
      const errors = logLines.map((l) => JSON.parse(l) as { level: string; msg: string; code?: string }).filter((l) => l.level === 'error');
      expect(errors).toEqual([expect.objectContaining({ code: 'EAUTH', msg: expect.stringContaining('SMTP_URL') })]);
      // The password is in the URL; the log names the server only.
      expect(logLines.join('\n')).not.toContain('wrong');
      expect(guarded.messages).toHaveLength(0);
    } finally {
      client.close();
      await guarded.close();
    }
  });
});

describe('the unsubscribe link', () => {
  const links = () => new EmailLinksService({ db, clock: () => clock.now });
  const emailOn = async (userId: string) => (await db.query<{ email: boolean }>('select email from settings where user_id = $1', [userId]))[0]?.email;

  it('shows whether e-mail is on without changing it, and turns it off when posted', async () => {
    const token = await addAddress('u-unsub', 'leave@example.net', 'en');
    expect(await links().unsubscribeView({ token })).toEqual({ data: { status: 'subscribed', language: 'en', address: 'leave@example.net' } });
    expect(await emailOn('u-unsub')).toBe(true);
    expect(await links().unsubscribe({ token })).toEqual({ data: { status: 'unsubscribed', language: 'en', address: 'leave@example.net' } });
    expect(await emailOn('u-unsub')).toBe(false);
    expect(await links().unsubscribeView({ token })).toMatchObject({ data: { status: 'unsubscribed' } });
    // The address stays (settings can turn e-mail on again).
    expect(await db.query('select 1 from email_addresses where user_id = $1', ['u-unsub'])).toHaveLength(1);
  });

  it('knows nothing of an unknown token, and refuses a malformed one as a validation error', async () => {
    expect(await links().unsubscribe({ token: 'unknown-token-0123456789' })).toEqual({ data: { status: 'invalid', language: null, address: null } });
    await expect(links().unsubscribe({ token: 'x' })).rejects.toMatchObject({ code: 'validation_failed' });
  });
});
