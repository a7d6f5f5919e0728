import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoProviders } from './demo-providers.js';
import { type FakeSmtp, startFakeSmtp } from './fake-smtp.js';

let catcher: FakeSmtp;
beforeAll(async () => {
  catcher = await startFakeSmtp();
});
afterAll(() => catcher?.close());

const send = (mail: Record<string, unknown>, url = catcher.smtpUrl) => nodemailer.createTransport(url).sendMail({ from: 'app@example.org', ...mail });

describe('the SMTP catcher', () => {
  it('keeps each mail parsed, with its raw header lines, and lists it in its JSON API', async () => {
    await send({ to: 'reader@example.net', subject: 'Hello', text: 'plain', html: '<p>rich</p>', headers: { 'X-Test': 'yes' } });
    const mail = await catcher.waitFor((m) => m.subject === 'Hello');
    expect(mail).toMatchObject({ envelope: { from: 'app@example.org', to: ['reader@example.net'] }, text: 'plain', html: '<p>rich</p>' });
    expect(mail.headerLines).toContainEqual({ key: 'x-test', line: 'X-Test: yes' });
    const listed = (await (await fetch(`${catcher.webUrl}/api/messages?to=reader@example.net`)).json()) as { data: { id: number }[] };
    expect(listed.data.map((m) => m.id)).toContain(mail.id);
    const one = (await (await fetch(`${catcher.webUrl}/api/messages/${mail.id}`)).json()) as { data: { subject: string } };
    expect(one.data.subject).toBe('Hello');
  });

  it('refuses bounce… with 550 and busy… with 450, as a real server would', async () => {
    await expect(send({ to: 'bounce@example.net', subject: 'x', text: 'x' })).rejects.toMatchObject({ responseCode: 550 });
    await expect(send({ to: 'busy@example.net', subject: 'x', text: 'x' })).rejects.toMatchObject({ responseCode: 450 });
    expect(catcher.refusals).toEqual(expect.arrayContaining([{ address: 'bounce@example.net', code: 550 }, { address: 'busy@example.net', code: 450 }]));
  });

  it('shows what a mail says without running it: text escaped, HTML in a sandboxed frame, the raw headers', async () => {
    await send({
      to: 'page@example.net',
      subject: '<img src=x onerror=alert(1)>',
      text: 'see <script>alert(1)</script> https://invest.example.org/x?a=1&b=2',
      html: '<script>alert(2)</script><p>hi</p>',
      list: { unsubscribe: 'https://invest.example.org/api/email/unsubscribe/tok' },
      headers: { 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
    });
    const mail = await catcher.waitFor((m) => m.envelope.to.includes('page@example.net'));
    const list = await (await fetch(catcher.webUrl)).text();
    expect(list).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(list).not.toContain('<img');
    const res = await fetch(`${catcher.webUrl}/messages/${mail.id}`);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const page = await res.text();
    expect(page).not.toContain('<script>');
    expect(page).toContain('see &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).toMatch(/<iframe sandbox="allow-popups allow-popups-to-escape-sandbox" srcdoc="[^"]*&lt;script&gt;alert\(2\)/);
    expect(page).toContain('List-Unsubscribe: &lt;https://invest.example.org/api/email/unsubscribe/tok&gt;');
    expect(page).toContain('href="https://invest.example.org/x?a=1&amp;b=2"');
    expect(page).toContain(`action="/messages/${mail.id}/one-click"`);
  });

  it('posts the one-click unsubscribe as a mailbox provider does', async () => {
    const seen: { method?: string; type?: string; body: string; cookie?: string }[] = [];
    const site = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method, type: req.headers['content-type'], body, cookie: req.headers.cookie });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/api/email/unsubscribe/tok`;
      await send({ to: 'oneclick@example.net', subject: 'one-click', text: 'x', list: { unsubscribe: url }, headers: { 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } });
      const mail = await catcher.waitFor((m) => m.subject === 'one-click');
      const answer = await (await fetch(`${catcher.webUrl}/messages/${mail.id}/one-click`, { method: 'POST' })).text();
      expect(answer).toContain('200');
      expect(seen).toEqual([{ method: 'POST', type: 'application/x-www-form-urlencoded', body: 'List-Unsubscribe=One-Click', cookie: undefined }]);
    } finally {
      site.close();
    }
  });

  it('takes a login when started with one, and refuses a wrong one with 535', async () => {
    const guarded = await startFakeSmtp({ auth: { user: 'app', pass: 's3cret' } });
    try {
      expect(guarded.smtpUrl).toMatch(/^smtp:\/\/app:s3cret@127\.0\.0\.1:\d+$/);
      await send({ to: 'a@example.net', subject: 'in', text: 'x' }, guarded.smtpUrl);
      await guarded.waitFor((m) => m.subject === 'in');
      await expect(send({ to: 'a@example.net', subject: 'out', text: 'x' }, guarded.smtpUrl.replace('s3cret', 'wrong'))).rejects.toMatchObject({ code: 'EAUTH', responseCode: 535 });
    } finally {
      await guarded.close();
    }
  });
});

describe('npm start', () => {
  it('starts the catcher when SMTP_URL is unset, fills it in and names the web view in the hint', async () => {
    // Only this channel's variables unset: the others' stand-ins are not started.
    const set = { TELEGRAM_API_URL: 'https://api.telegram.org', WEB_PUSH_TEST_CA: '-----BEGIN CERTIFICATE-----' };
    const before = Object.fromEntries(['SMTP_URL', ...Object.keys(set)].map((k) => [k, process.env[k]]));
    Object.assign(process.env, set);
    delete process.env.SMTP_URL;
    const running = await demoProviders.start();
    try {
      const url = running.env.SMTP_URL!;
      expect(url).toMatch(/^smtp:\/\/127\.0\.0\.1:\d+$/);
      const web = /E-mail: (http:\/\/127\.0\.0\.1:\d+)/.exec(running.hint ?? '')?.[1];
      expect(web).toBeDefined();
      await send({ to: 'demo@example.net', subject: 'demo', text: 'x' }, url);
      const listed = (await (await fetch(`${web}/api/messages`)).json()) as { data: { subject: string }[] };
      expect(listed.data.map((m) => m.subject)).toEqual(['demo']);
    } finally {
      await running.close();
      for (const [k, v] of Object.entries(before)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });
});
