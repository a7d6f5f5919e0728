/**
 * E-mail end to end against the local SMTP catcher: an address entered in the settings gets a confirmation
 * mail, its link (through the gateway) confirms it, and a firing then arrives as multipart/alternative with
 * the one-click unsubscribe headers and its texts escaped; an unconfirmed address gets nothing; the one-click
 * POST turns e-mail off while a GET of the same link changes nothing; a recipient the server refuses for good
 * is a permanent failure shown in the settings.
 */
import { randomUUID } from 'node:crypto';
import { eventually } from '@invest/platform/testing/index';
import { type CaughtMail, type FakeSmtp, startFakeSmtp } from '@invest/delivery/testing/fake-smtp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeliveryStack, startDeliveryStack } from '../support/delivery-stack.js';

/** What the mails link to; the test sends those requests to this stack's gateway. */
const PUBLIC = 'https://invest.test';

let stack: DeliveryStack;
let catcher: FakeSmtp;

beforeAll(async () => {
  catcher = await startFakeSmtp();
  stack = await startDeliveryStack('dlvmail', {
    // AFKS is 'АФК "Система" ПАО ао': a name with quotes to escape.
    tickers: ['SBER', 'AFKS'],
    openingRates: [
      { ticker: 'SBER', rate: 100, change: 0 },
      { ticker: 'AFKS', rate: 100, change: 0 },
    ],
    delivery: { smtp: { url: catcher.smtpUrl, from: 'Invest tracker <noreply@invest.test>' }, publicBaseUrl: PUBLIC },
  });
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await catcher?.close();
});

const user = () => `mail-${randomUUID().slice(0, 8)}`;
const settings = async (u: string) => {
  const res = await stack.api('GET', '/api/notification-settings', { user: u });
  expect(res.status, res.text).toBe(200);
  return res.body.data;
};
const put = async (u: string, body: unknown) => {
  const res = await stack.api('PUT', '/api/notification-settings', { user: u, body });
  expect(res.status, res.text).toBe(200);
};
/** A link of a mail, sent to this stack's gateway instead of the public origin. */
const local = (link: string) => {
  expect(link.startsWith(`${PUBLIC}/`), link).toBe(true);
  return new URL(link.slice(PUBLIC.length), stack.base).toString();
};
const to = (address: string) => (m: CaughtMail) => m.envelope.to.includes(address);
/** A header's lines as sent, unfolded (RFC 5322 §2.2.3). */
const header = (m: CaughtMail, key: string) => m.headerLines.filter((h) => h.key === key).map((h) => h.line.replace(/\r?\n(?=[ \t])/g, ''));

/** A price target of `u` crossed (the ticker from 100 to `target`): its notification id. */
async function fire(u: string, target: number, ticker = 'SBER'): Promise<number> {
  await stack.applyRates([{ ticker, rate: 100, change: 0 }]);
  const created = await stack.api('POST', '/api/price-alert', { user: u, body: { target_price: target, assetable: stack.share(ticker) } });
  expect(created.status, created.text).toBe(201);
  await stack.applyRates([{ ticker, rate: target, change: 0 }]);
  return created.body.data.id as number;
}

/**
 * The confirmation mail of `address`, once its sending is recorded too (the mail reaches the catcher a moment
 * before the job commits its token; a person cannot click that fast).
 */
async function confirmationMail(address: string): Promise<CaughtMail> {
  const mail = await catcher.waitFor(to(address));
  await eventually(
    () => stack.delivery.db.query<{ sent: boolean }>('select confirm_sent_at is not null as sent from email_addresses where address = $1', [address]),
    (rows) => rows[0]?.sent === true,
    `the confirmation of ${address} recorded`,
  );
  return mail;
}

/** Enters `address` for `u` and follows the confirmation mail's link. */
async function confirmAddress(u: string, address: string): Promise<void> {
  await put(u, { email: address });
  const mail = await confirmationMail(address);
  const link = /https:\/\/\S+\/api\/email\/confirm\?token=[A-Za-z0-9_-]+/.exec(mail.text ?? '')?.[0];
  expect(link, mail.text ?? '').toBeDefined();
  const res = await fetch(local(link!));
  expect(res.status).toBe(200);
}

describe('e-mail notifications', () => {
  it('confirms an address by its link, then sends a firing as text and HTML with the one-click unsubscribe headers', async () => {
    const u = user();
    const address = `${u}@example.net`;
    await put(u, { language: 'en', email: address });
    expect((await settings(u)).email).toEqual({ address, confirmed: false });

    const confirmation = await confirmationMail(address);
    expect(confirmation.subject).toBe('Confirm your address for Invest tracker notifications');
    const link = /https:\/\/\S+\/api\/email\/confirm\?token=[A-Za-z0-9_-]+/.exec(confirmation.text ?? '')![0];
    const page = await fetch(local(link), { headers: { 'accept-language': 'ru' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    // The user's language, not the browser's.
    expect(await page.text()).toContain('Address confirmed');
    expect((await settings(u)).email).toEqual({ address, confirmed: true });

    await fire(u, 110, 'AFKS');
    const mail = await catcher.waitFor((m) => to(address)(m) && m !== confirmation, 20_000);

    expect(header(mail, 'content-type')[0]).toMatch(/^Content-Type: multipart\/alternative; boundary=/);
    expect(mail.raw).toMatch(/Content-Type: text\/plain; charset=utf-8[\s\S]*Content-Type: text\/html; charset=utf-8/);
    const token = (await stack.delivery.db.query<{ unsubscribe_token: string }>('select unsubscribe_token from email_addresses where user_id = $1', [u]))[0]!.unsubscribe_token;
    expect(header(mail, 'list-unsubscribe')).toEqual([`List-Unsubscribe: <${PUBLIC}/api/email/unsubscribe/${token}>`]);
    expect(header(mail, 'list-unsubscribe-post')).toEqual(['List-Unsubscribe-Post: List-Unsubscribe=One-Click']);

    expect(mail.subject).toContain('AFKS');
    expect(mail.text).toContain(`${PUBLIC}/notifications`);
    // The firing's text as it is in the text part, escaped in the HTML part.
    expect(mail.text).toContain('АФК "Система" ПАО ао');
    expect(mail.html).toContain('АФК &quot;Система&quot; ПАО ао');
    expect(mail.html).not.toContain('"Система"');
    // Recorded as sent, with the Message-ID, a moment after the hand-over.
    await eventually(
      () => stack.delivery.db.query<{ status: string; provider_id: string }>("select status, provider_id from deliveries where user_id = $1 and channel = 'email'", [u]),
      (rows) => rows.length === 1 && rows[0]!.status === 'sent' && rows[0]!.provider_id === mail.messageId,
      'the delivery recorded as sent',
    );
  });

  it('sends nothing to an address that was not confirmed', async () => {
    const unconfirmed = user();
    const confirmed = user();
    await put(unconfirmed, { email: `${unconfirmed}@example.net` });
    await catcher.waitFor(to(`${unconfirmed}@example.net`));
    await confirmAddress(confirmed, `${confirmed}@example.net`);

    // Both fire in the same batch; the confirmed one's mail arriving shows the batch went out.
    await stack.applyRates([{ ticker: 'SBER', rate: 100, change: 0 }]);
    for (const u of [unconfirmed, confirmed]) {
      const created = await stack.api('POST', '/api/price-alert', { user: u, body: { target_price: 120, assetable: stack.share('SBER') } });
      expect(created.status, created.text).toBe(201);
    }
    await stack.applyRates([{ ticker: 'SBER', rate: 120, change: 0 }]);
    await catcher.waitFor((m) => to(`${confirmed}@example.net`)(m) && !m.subject.startsWith('Подтвердите'), 20_000);
    expect(catcher.messages.filter(to(`${unconfirmed}@example.net`))).toHaveLength(1);
    expect(await stack.delivery.db.query("select 1 from deliveries where user_id = $1 and channel = 'email'", [unconfirmed])).toEqual([]);
  });

  it('turns e-mail off by the one-click POST; a GET of the same link only shows a page', async () => {
    const u = user();
    await confirmAddress(u, `${u}@example.net`);
    const token = (await stack.delivery.db.query<{ unsubscribe_token: string }>('select unsubscribe_token from email_addresses where user_id = $1', [u]))[0]!.unsubscribe_token;
    const url = new URL(`/api/email/unsubscribe/${token}`, stack.base).toString();

    // Scanners fetch header links: a GET changes nothing, twice over.
    for (let i = 0; i < 2; i++) {
      const page = await fetch(url);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('<form method="post"');
      expect(html).toContain('name="List-Unsubscribe" value="One-Click"');
    }
    expect((await settings(u)).channels.email).toBe(true);

    // The wrong body is refused and changes nothing.
    const wrong = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=Please' });
    expect(wrong.status).toBe(400);
    expect((await settings(u)).channels.email).toBe(true);

    // As a mailbox provider posts it: no cookies, no token, no redirect.
    const posted = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click', redirect: 'manual' });
    expect(posted.status).toBe(200);
    const after = await settings(u);
    expect(after.channels.email).toBe(false);
    expect(after.email).toEqual({ address: `${u}@example.net`, confirmed: true });

    // And the next firing's message goes out without an e-mail.
    const id = await fire(u, 115);
    const [group] = await eventually(
      () =>
        stack.delivery.db.query<{ id: string; sealed: boolean }>(
          'select g.id::text, g.sealed_at is not null as sealed from received_firings f join message_groups g on g.id = f.group_id where f.notification_id = $1',
          [id],
        ),
      (rows) => rows.length === 1 && rows[0]!.sealed,
      'the firing sealed in its message',
    );
    expect(await stack.delivery.db.query("select 1 from deliveries where group_id = $1 and channel = 'email'", [group!.id])).toEqual([]);
  });

  it('takes the one-click form as multipart/form-data too, and refuses an unknown link', async () => {
    const u = user();
    await confirmAddress(u, `${u}@example.net`);
    const token = (await stack.delivery.db.query<{ unsubscribe_token: string }>('select unsubscribe_token from email_addresses where user_id = $1', [u]))[0]!.unsubscribe_token;
    const form = new FormData();
    form.set('List-Unsubscribe', 'One-Click');
    const posted = await fetch(new URL(`/api/email/unsubscribe/${token}`, stack.base), { method: 'POST', body: form, redirect: 'manual' });
    expect(posted.status).toBe(200);
    expect((await settings(u)).channels.email).toBe(false);

    const unknown = await fetch(new URL('/api/email/unsubscribe/no-such-token-0123456789', stack.base), { method: 'POST', body: form });
    expect(unknown.status).toBe(404);
    expect((await fetch(new URL('/api/email/confirm?token=no-such-token-0123456789', stack.base))).status).toBe(404);
    // Other routes still take no multipart body.
    const elsewhere = await fetch(new URL('/api/notification-settings', stack.base), {
      method: 'PUT',
      headers: { authorization: `Bearer ${await stack.token(u)}` },
      body: form,
    });
    expect(elsewhere.status).toBe(415);
  });

  it('records a recipient the server refuses for good as a permanent failure shown in the settings, and stops sending to it', async () => {
    const u = user();
    const address = `${u}@example.net`;
    await confirmAddress(u, address);
    catcher.refuse(address, 550, '5.1.1 No such user');
    const first = await fire(u, 130);
    await eventually(
      () => settings(u),
      (s) => s.last_failures.some((f: { channel: string }) => f.channel === 'email'),
      'the e-mail failure in settings',
      20_000,
    );
    const failure = (await settings(u)).last_failures.find((f: { channel: string }) => f.channel === 'email');
    expect(failure.reason).toBe('550 5.1.1 No such user');
    const [delivery] = await stack.delivery.db.query<{ status: string; attempts: number }>("select status, attempts from deliveries where user_id = $1 and channel = 'email'", [u]);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1 });
    expect(catcher.refusals.filter((r) => r.address === address)).toHaveLength(1);

    // The address stays (shown with its failure) but gets nothing more: its next firing's message goes out
    // (its group sealed) with no e-mail delivery.
    expect((await settings(u)).email).toEqual({ address, confirmed: true });
    const second = await fire(u, 140);
    expect(second).not.toBe(first);
    const [group] = await eventually(
      () =>
        stack.delivery.db.query<{ id: string; sealed: boolean }>(
          'select g.id::text, g.sealed_at is not null as sealed from received_firings f join message_groups g on g.id = f.group_id where f.notification_id = $1',
          [second],
        ),
      (rows) => rows.length === 1 && rows[0]!.sealed,
      'the second firing sealed in its message',
    );
    expect(await stack.delivery.db.query("select 1 from deliveries where group_id = $1 and channel = 'email'", [group!.id])).toEqual([]);
    expect(catcher.refusals.filter((r) => r.address === address)).toHaveLength(1);
  });
});
