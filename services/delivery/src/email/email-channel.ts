import type { Type } from '@nestjs/common';
import type { Db, Logger } from '@invest/platform';
import type { ChannelSender } from '../channels/channel.js';
import { EmailConfirmations } from './email-confirmations.job.js';
import { EmailLinksService } from './email-links.service.js';
import { createEmailHandler } from './email.handler.js';
import { createEmailSender } from './email.sender.js';
import { SmtpClient, type SmtpConfig } from './smtp.client.js';

export interface EmailChannelOptions {
  db: Db;
  logger: Logger;
  /** Absent (no `SMTP_URL`): the channel is off; the links in mails sent before still work. */
  smtp?: SmtpConfig | undefined;
  publicBaseUrl: string;
  pollMs: number;
  clock: () => Date;
}

/** The e-mail channel's parts for the app factory: its RPC handler, its sender (with SMTP), its confirmation job. */
export interface EmailChannel {
  handler: Type;
  sender?: ChannelSender;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createEmailChannel(o: EmailChannelOptions): EmailChannel {
  const handler = createEmailHandler(new EmailLinksService({ db: o.db, clock: o.clock }));
  if (!o.smtp) {
    o.logger.info('email channel off: SMTP_URL is not set');
    return { handler, start: () => Promise.resolve(), stop: () => Promise.resolve() };
  }
  const smtp = new SmtpClient(o.smtp, o.logger);
  const confirmations = new EmailConfirmations({ db: o.db, smtp, publicBaseUrl: o.publicBaseUrl, pollMs: o.pollMs, clock: o.clock, logger: o.logger });
  return {
    handler,
    sender: createEmailSender({ db: o.db, smtp, publicBaseUrl: o.publicBaseUrl, clock: o.clock }),
    start: () => confirmations.start(),
    async stop() {
      await confirmations.stop();
      smtp.close();
    },
  };
}
