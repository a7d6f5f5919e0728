import { randomBytes } from 'node:crypto';
import type { Db, Logger } from '@invest/platform';
import { hashSecretToken } from '../channels/secret-token.js';
import { lockUnsentConfirmations, recordConfirmationSent, recordEmailFailure } from './email-address.repository.js';
import { renderConfirmationMail } from './email-message.js';
import type { SmtpClient } from './smtp.client.js';

export interface EmailConfirmationsOptions {
  db: Db;
  smtp: SmtpClient;
  /** Where the gateway is: the link is `<url>/api/email/confirm?token=…`. */
  publicBaseUrl: string;
  pollMs: number;
  clock: () => Date;
  logger: Logger;
}

/** Addresses handled per transaction. */
const BATCH = 20;
/** The longest wait between rounds while the SMTP server keeps failing. */
const MAX_BACKOFF_MS = 60_000;

/**
 * Sends each new address (settings clear `confirm_sent_at` when it changes) its confirmation mail, in the user's
 * language, with a single random token stored hashed. Rows are locked while their mail goes (another instance
 * skips them); a crash between the hand-over and the commit sends that mail once more. A 5xx for the address is
 * recorded as the e-mail channel's failure (shown in settings) and not retried; other failures wait, with backoff.
 */
export class EmailConfirmations {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;
  private failures = 0;

  constructor(private readonly o: EmailConfirmationsOptions) {}

  async start(): Promise<void> {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One round: every address owed a confirmation, until one cannot be sent now. */
  async runOnce(): Promise<{ sent: number; refused: number; waiting: boolean }> {
    const counts = { sent: 0, refused: 0, waiting: false };
    for (;;) {
      const handled = await this.o.db.transaction(async (tx) => {
        const due = await lockUnsentConfirmations(tx, BATCH);
        for (const a of due) {
          const token = randomBytes(32).toString('base64url');
          const mail = renderConfirmationMail(a.language, a.address, `${this.o.publicBaseUrl}/api/email/confirm?token=${token}`);
          const result = await this.o.smtp.send({ to: a.address, ...mail });
          const now = this.o.clock();
          if (result.outcome === 'retry') {
            // The server is down or refuses us now: the rest waits for the next round too.
            counts.waiting = true;
            break;
          }
          if (result.outcome === 'permanent') {
            counts.refused++;
            this.o.logger.info({ userId: a.userId, reason: result.reason }, 'email: the confirmation mail was refused for good');
            await recordEmailFailure(tx, a.userId, result.reason, now);
          } else {
            counts.sent++;
          }
          await recordConfirmationSent(tx, a.userId, hashSecretToken(token), now, result.outcome === 'permanent' ? now : null);
        }
        return due.length;
      });
      if (counts.waiting || handled < BATCH) return counts;
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.runOnce()
        .then(
          (r) => {
            this.failures = r.waiting ? this.failures + 1 : 0;
            if (r.sent || r.refused) this.o.logger.debug({ sent: r.sent, refused: r.refused }, 'email: confirmation mails handed over');
          },
          (err: unknown) => {
            this.failures++;
            this.o.logger.error({ err }, 'email: the confirmation round failed');
          },
        )
        .finally(() => this.schedule(Math.min(this.o.pollMs * 2 ** this.failures, Math.max(MAX_BACKOFF_MS, this.o.pollMs))));
    }, delayMs);
    this.timer.unref?.();
  }
}
