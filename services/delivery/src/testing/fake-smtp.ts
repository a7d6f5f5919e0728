/**
 * A local SMTP catcher (shared/reference/email-smtp.md): a real SMTP server (smtp-server; STARTTLS off, login
 * optional) that parses every mail with mailparser and keeps it, a web view of what it caught (the list, each
 * mail's text, its HTML in a sandboxed frame and its raw headers), a one-click unsubscribe button that POSTs
 * as a mailbox provider does (RFC 8058), and a JSON API for tests. `npm start` runs it in development when
 * SMTP_URL is unset; tests start one per file.
 *
 * Recipients it refuses, as real servers do: any local part starting with `bounce` gets `550 5.1.1` (for good),
 * `busy` gets `450 4.2.1` (try later); `refuse()` adds others.
 */
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { escapeHtml } from '@invest/platform/http/escape-html';
import { type AddressObject, simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';

export interface CaughtMail {
  id: number;
  receivedAt: string;
  /** What the client said in MAIL FROM and RCPT TO (accepted recipients only). */
  envelope: { from: string | null; to: string[] };
  from: string;
  to: string;
  subject: string;
  date: string | null;
  messageId: string | null;
  text: string | null;
  html: string | null;
  /** Every header as sent, in order (`List-Unsubscribe: <https://…>`); mailparser folds List-* headers, so read these. */
  headerLines: { key: string; line: string }[];
  /** The whole message as received (RFC 5322). */
  raw: string;
}

export interface FakeSmtpOptions {
  /** When given, a login must use these (a wrong one gets 535); a client that does not log in is still served. */
  auth?: { user: string; pass: string };
  /** Most mails kept (oldest dropped first). Default 500. */
  keep?: number;
}

export interface FakeSmtp {
  /** `smtp://127.0.0.1:<port>` (with the login when `auth` was given): the value for SMTP_URL. */
  smtpUrl: string;
  /** The web view and JSON API. */
  webUrl: string;
  /** Every mail caught, oldest first. */
  messages: CaughtMail[];
  /** The first mail (caught already or later) that matches, or a rejection after `timeoutMs` (default 10 s). */
  waitFor(match: (m: CaughtMail) => boolean, timeoutMs?: number): Promise<CaughtMail>;
  /** RCPT TO for this address is answered `code text` (5xx: for good; 4xx: try later) until `allow`. */
  refuse(address: string, code: number, text?: string): void;
  allow(address: string): void;
  /** Recipients refused so far (code and address), for assertions. */
  refusals: { address: string; code: number }[];
  clear(): void;
  close(): Promise<void>;
}

export async function startFakeSmtp(opts: FakeSmtpOptions = {}): Promise<FakeSmtp> {
  const keep = opts.keep ?? 500;
  const messages: CaughtMail[] = [];
  const refusals: FakeSmtp['refusals'] = [];
  const refused = new Map<string, { code: number; text: string }>();
  const caught = new EventEmitter();
  let nextId = 1;

  const refusalOf = (address: string) => {
    const a = address.toLowerCase();
    const local = a.split('@')[0] ?? '';
    return refused.get(a) ?? (local.startsWith('bounce') ? { code: 550, text: '5.1.1 No such user here' } : local.startsWith('busy') ? { code: 450, text: '4.2.1 Mailbox busy, try again later' } : undefined);
  };

  const smtp = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    banner: 'Invest tracker SMTP catcher',
    size: 10 * 1024 * 1024,
    closeTimeout: 1_000,
    onAuth(auth, _session, cb) {
      if (!opts.auth || (auth.username === opts.auth.user && auth.password === opts.auth.pass)) return cb(null, { user: auth.username ?? 'anonymous' });
      return cb(Object.assign(new Error('5.7.8 Authentication credentials invalid'), { responseCode: 535 }));
    },
    onRcptTo(address: SMTPServerAddress, _session, cb) {
      const r = refusalOf(address.address);
      if (!r) return cb();
      refusals.push({ address: address.address, code: r.code });
      return cb(Object.assign(new Error(r.text), { responseCode: r.code }));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('error', cb);
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        simpleParser(raw).then(
          (m) => {
            const mail: CaughtMail = {
              id: nextId++,
              receivedAt: new Date().toISOString(),
              envelope: {
                from: session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
                to: session.envelope.rcptTo.map((r) => r.address),
              },
              from: m.from?.text ?? '',
              to: addressText(m.to),
              subject: m.subject ?? '',
              date: m.date ? m.date.toISOString() : null,
              messageId: m.messageId ?? null,
              text: m.text ?? null,
              html: typeof m.html === 'string' ? m.html : null,
              headerLines: m.headerLines.map((h) => ({ key: h.key, line: h.line })),
              raw: raw.toString('utf8'),
            };
            messages.push(mail);
            if (messages.length > keep) messages.splice(0, messages.length - keep);
            caught.emit('mail', mail);
            cb(null, `Queued as ${mail.id}`);
          },
          (err: Error) => cb(err),
        );
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    smtp.once('error', reject);
    smtp.listen(0, '127.0.0.1', () => resolve());
  });
  const smtpPort = (smtp.server.address() as AddressInfo).port;

  const web = createServer((req, res) => {
    handleWeb(req, res, messages).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  const webUrl = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
  const login = opts.auth ? `${encodeURIComponent(opts.auth.user)}:${encodeURIComponent(opts.auth.pass)}@` : '';

  return {
    smtpUrl: `smtp://${login}127.0.0.1:${smtpPort}`,
    webUrl,
    messages,
    refusals,
    waitFor(match, timeoutMs = 10_000) {
      const found = messages.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const onMail = (m: CaughtMail) => {
          if (!match(m)) return;
          clearTimeout(timer);
          caught.off('mail', onMail);
          resolve(m);
        };
        const timer = setTimeout(() => {
          caught.off('mail', onMail);
          reject(new Error(`no matching mail within ${timeoutMs} ms; caught: ${messages.map((m) => `${m.to}: ${m.subject}`).join('; ') || 'none'}`));
        }, timeoutMs);
        caught.on('mail', onMail);
      });
    },
    refuse(address, code, text) {
      refused.set(address.toLowerCase(), { code, text: text ?? (code >= 500 ? '5.1.1 No such user here' : '4.2.0 Try again later') });
    },
    allow(address) {
      refused.delete(address.toLowerCase());
    },
    clear() {
      messages.length = 0;
    },
    async close() {
      web.closeAllConnections();
      await Promise.all([new Promise<void>((resolve) => smtp.close(() => resolve())), new Promise<void>((resolve) => web.close(() => resolve()))]);
    },
  };
}

function addressText(to: AddressObject | AddressObject[] | undefined): string {
  if (!to) return '';
  return (Array.isArray(to) ? to : [to]).map((a) => a.text).join(', ');
}


/** The pages show what strangers' mail says: no script, nothing loaded from elsewhere. */
const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'";

function page(res: ServerResponse, status: number, title: string, body: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': PAGE_CSP, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
  res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1f2328}table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:6px 8px;border-bottom:1px solid #d0d7de;vertical-align:top}
pre{white-space:pre-wrap;word-break:break-word;background:#f6f8fa;padding:12px;border-radius:6px}iframe{width:100%;height:420px;border:1px solid #d0d7de;border-radius:6px}a{color:#0b57d0}.muted{color:#59636e}</style>
</head><body>${body}</body></html>`);
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

/** The https or http URL of a List-Unsubscribe header (the one RFC 8058's one-click POST goes to). */
export function oneClickUrl(mail: CaughtMail): string | undefined {
  const line = mail.headerLines.find((h) => h.key === 'list-unsubscribe')?.line;
  const post = mail.headerLines.find((h) => h.key === 'list-unsubscribe-post')?.line;
  if (!line || !post || !/List-Unsubscribe=One-Click/.test(post)) return undefined;
  return /<(https?:\/\/[^>]+)>/.exec(line.replace(/\r?\n[ \t]+/g, ' '))?.[1];
}

/** http(s) links of a text part, to click from the page (the HTML part's links open in a new tab too). */
function linksOf(text: string | null): string[] {
  return [...new Set(text?.match(/https?:\/\/[^\s<>"]+/g) ?? [])];
}

async function handleWeb(req: IncomingMessage, res: ServerResponse, messages: CaughtMail[]): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://catcher');
  const byId = (id: string | undefined) => messages.find((m) => String(m.id) === id);
  const path = url.pathname;
  let m: RegExpExecArray | null;

  if (req.method === 'GET' && path === '/api/messages') {
    const to = url.searchParams.get('to')?.toLowerCase();
    return json(res, 200, { data: messages.filter((x) => !to || x.envelope.to.some((a) => a.toLowerCase() === to)) });
  }
  if (req.method === 'DELETE' && path === '/api/messages') {
    messages.length = 0;
    res.writeHead(204).end();
    return;
  }
  if (req.method === 'GET' && (m = /^\/api\/messages\/(\d+)$/.exec(path))) {
    const mail = byId(m[1]);
    return mail ? json(res, 200, { data: mail }) : json(res, 404, { message: 'No such message.' });
  }
  if (req.method === 'GET' && path === '/') {
    const rows = [...messages]
      .reverse()
      .map((x) => `<tr><td>${escapeHtml(x.receivedAt)}</td><td>${escapeHtml(x.from)}</td><td>${escapeHtml(x.envelope.to.join(', '))}</td><td><a href="/messages/${x.id}">${escapeHtml(x.subject || '(no subject)')}</a></td></tr>`)
      .join('');
    return page(
      res,
      200,
      'SMTP catcher',
      `<h1>SMTP catcher</h1><p class="muted">Every mail sent to this server is kept here and goes nowhere else. Recipients starting with <code>bounce</code> are refused with 550, with <code>busy</code> with 450. JSON: <a href="/api/messages">/api/messages</a>.</p>
<table><thead><tr><th>Received</th><th>From</th><th>To</th><th>Subject</th></tr></thead><tbody>${rows || '<tr><td colspan="4" class="muted">No mail yet.</td></tr>'}</tbody></table>`,
    );
  }
  if (req.method === 'GET' && (m = /^\/messages\/(\d+)\/raw$/.exec(path))) {
    const mail = byId(m[1]);
    if (!mail) return page(res, 404, 'Not found', '<p>No such message.</p>');
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(mail.raw);
    return;
  }
  if (req.method === 'GET' && (m = /^\/messages\/(\d+)$/.exec(path))) {
    const mail = byId(m[1]);
    if (!mail) return page(res, 404, 'Not found', '<p>No such message.</p>');
    const oneClick = oneClickUrl(mail);
    const links = linksOf(mail.text);
    // The HTML part in a frame without scripts or same-origin rights; its links open in a new tab.
    const framed = mail.html === null ? '' : `<h2>HTML</h2><iframe sandbox="allow-popups allow-popups-to-escape-sandbox" srcdoc="${escapeHtml(`<base target="_blank">${mail.html}`)}"></iframe>`;
    return page(
      res,
      200,
      mail.subject,
      `<p><a href="/">All mail</a> · <a href="/messages/${mail.id}/raw">Raw source</a></p>
<h1>${escapeHtml(mail.subject || '(no subject)')}</h1>
<table><tr><th>From</th><td>${escapeHtml(mail.from)}</td></tr><tr><th>To</th><td>${escapeHtml(mail.to)}</td></tr><tr><th>Date</th><td>${escapeHtml(mail.date ?? '')}</td></tr><tr><th>Envelope</th><td>${escapeHtml(`${mail.envelope.from ?? ''} → ${mail.envelope.to.join(', ')}`)}</td></tr></table>
${links.length ? `<h2>Links</h2><ul>${links.map((l) => `<li><a href="${escapeHtml(l)}" target="_blank" rel="noreferrer">${escapeHtml(l)}</a></li>`).join('')}</ul>` : ''}
${oneClick ? `<form method="post" action="/messages/${mail.id}/one-click"><p>One-click unsubscribe (RFC 8058) to <code>${escapeHtml(oneClick)}</code> <button type="submit">Unsubscribe as a mailbox provider would</button></p></form>` : ''}
<h2>Text</h2><pre>${escapeHtml(mail.text ?? '(no text part)')}</pre>
${framed}
<h2>Headers</h2><pre>${escapeHtml(mail.headerLines.map((h) => h.line).join('\n'))}</pre>`,
    );
  }
  if (req.method === 'POST' && (m = /^\/messages\/(\d+)\/one-click$/.exec(path))) {
    const mail = byId(m[1]);
    const target = mail && oneClickUrl(mail);
    if (!target) return page(res, 404, 'Not found', '<p>No such message, or it offers no one-click unsubscribe.</p>');
    // As the mailbox provider: no cookies, no credentials, the body RFC 8058 names, redirects not followed.
    const answer = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
      redirect: 'manual',
    }).then(
      (r) => `${r.status} ${r.statusText}`,
      (err: unknown) => `failed: ${err instanceof Error ? err.message : String(err)}`,
    );
    return page(res, 200, 'One-click unsubscribe', `<p><a href="/messages/${mail.id}">Back to the mail</a></p><p>POST ${escapeHtml(target)} answered: <strong>${escapeHtml(answer)}</strong></p>`);
  }
  return page(res, 404, 'Not found', '<p>Not found. <a href="/">All mail</a></p>');
}
