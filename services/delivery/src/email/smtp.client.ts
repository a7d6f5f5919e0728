import type { Logger } from '@invest/platform';
import nodemailer from 'nodemailer';

/** `SMTP_URL` and `SMTP_FROM`: where mail is handed over, and who it is from. */
export interface SmtpConfig {
  /** `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://…:465` (TLS from the first byte). */
  url: string;
  /** `Invest Tracker <noreply@example.org>` */
  from: string;
}

/** One mail to one address: a text part and an HTML part (sent as multipart/alternative). */
export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The one-click unsubscribe URL (RFC 8058): `List-Unsubscribe` and `List-Unsubscribe-Post` headers. */
  unsubscribeUrl?: string;
}

/**
 * What a hand-over came to. `retry`: the same mail may go later (4xx, connection, timeout, and our own
 * configuration: a refused login or sender is not the recipient's fault). `permanent`: the server refused this
 * mail or recipient for good (5xx).
 */
export type SmtpResult = { outcome: 'sent'; messageId: string } | { outcome: 'retry'; reason: string } | { outcome: 'permanent'; reason: string };

/** What nodemailer puts on its errors and on the refusals of a resolved send (see its `errors.d.ts`). */
interface SmtpFailure {
  code?: string | undefined;
  command?: string | undefined;
  response?: string | undefined;
  responseCode?: number | undefined;
  message?: string | undefined;
}

const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000, dnsTimeout: 10_000 };
const REASON_MAX_CHARS = 300;

/**
 * The SMTP server of `SMTP_URL` through one pooled nodemailer transport, made once and reused, with
 * timeouts; every failure comes back classified (never thrown). The URL holds the password: it is never logged.
 */
export class SmtpClient {
  private readonly transport: ReturnType<typeof nodemailer.createTransport>;

  constructor(
    private readonly config: SmtpConfig,
    private readonly logger: Logger,
  ) {
    this.transport = nodemailer.createTransport({ url: config.url, pool: true, maxConnections: 3, ...TIMEOUTS }, { from: config.from });
  }

  /** The server's host and port, for logs (never the URL: it may carry the password). */
  get server(): string {
    try {
      const u = new URL(this.config.url);
      return u.host;
    } catch {
      return '(unparsable SMTP_URL)';
    }
  }

  async send(mail: OutgoingMail): Promise<SmtpResult> {
    try {
      const info = (await this.transport.sendMail({
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        ...(mail.unsubscribeUrl
          ? { list: { unsubscribe: mail.unsubscribeUrl }, headers: { 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } }
          : {}),
      })) as { messageId: string; rejected?: unknown[]; rejectedErrors?: SmtpFailure[] };
      // With one recipient a refusal rejects the send; a resolved send that still lists it refused is the same.
      const refused = info.rejectedErrors?.[0];
      if (refused || info.rejected?.length) return this.classify(refused ?? { message: 'recipient refused' });
      return { outcome: 'sent', messageId: info.messageId };
    } catch (err) {
      return this.classify(err as SmtpFailure);
    }
  }

  /** Closes the pooled connections. */
  close(): void {
    this.transport.close();
  }

  private classify(err: SmtpFailure): SmtpResult {
    const result = classifySmtpFailure(err);
    if (result.outcome === 'retry' && isConfigurationFault(err)) {
      // Every user's mail waits on this: whoever runs the service has to fix SMTP_URL or SMTP_FROM.
      this.logger.error(
        { server: this.server, code: err.code, responseCode: err.responseCode, command: err.command, reason: result.reason },
        'email: the SMTP server refused our login or sender; mail waits until SMTP_URL/SMTP_FROM are fixed',
      );
    } else if (result.outcome === 'retry') {
      this.logger.warn({ server: this.server, code: err.code, responseCode: err.responseCode, reason: result.reason }, 'email: SMTP hand-over failed, will retry');
    }
    return result;
  }
}

/**
 * A failure's class: 5xx (but 503, a command out of sequence) for the recipient or the message is permanent;
 * 4xx, connection, socket, timeout and DNS failures are retried; a refused login (EAUTH, 530/535) or sender
 * (5xx to MAIL FROM) is our configuration and is retried too, never a permanent failure of the user.
 */
export function classifySmtpFailure(err: SmtpFailure): SmtpResult {
  const reason = reasonOf(err);
  if (isConfigurationFault(err)) return { outcome: 'retry', reason };
  const code = err.responseCode;
  if (code !== undefined && code >= 500 && code < 600 && code !== 503) return { outcome: 'permanent', reason };
  return { outcome: 'retry', reason };
}

function isConfigurationFault(err: SmtpFailure): boolean {
  if (err.code === 'EAUTH' || err.code === 'ENOAUTH' || err.code === 'EOAUTH2') return true;
  if (err.responseCode === 530 || err.responseCode === 535) return true;
  return err.command === 'MAIL FROM' && (err.responseCode ?? 0) >= 500;
}

/** "550 5.1.1 No such user" as the server said it, or the error code and message when it said nothing. */
function reasonOf(err: SmtpFailure): string {
  const text = err.response?.trim() || [err.code, err.message].filter(Boolean).join(' ') || 'unknown SMTP failure';
  return text.length > REASON_MAX_CHARS ? `${text.slice(0, REASON_MAX_CHARS - 1)}…` : text;
}
