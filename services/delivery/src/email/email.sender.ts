import type { SqlClient } from '@invest/platform';
import type { ChannelSender, OutgoingMessage, SendResult } from '../channels/channel.js';
import { deliverableAddress, deliverableAddresses, markBounced, unsubscribeTokenOf } from './email-address.repository.js';
import { renderNotificationMail } from './email-message.js';
import type { SmtpClient } from './smtp.client.js';

export interface EmailSenderOptions {
  db: SqlClient;
  smtp: SmtpClient;
  /** Where the gateway is: the unsubscribe link is `<url>/api/email/unsubscribe/<token>`. */
  publicBaseUrl: string;
  clock: () => Date;
}

/**
 * The e-mail channel: one confirmed address per user, a mail with a text and an HTML part, the one-click
 * unsubscribe headers (RFC 8058). A 5xx for the recipient is permanent and stops the address (kept, shown in
 * settings); 4xx, connection and timeout failures are retried, and so is a refused login (our configuration).
 */
export function createEmailSender(o: EmailSenderOptions): ChannelSender {
  return {
    channel: 'email',
    async addresses(db, userIds) {
      const addresses = await deliverableAddresses(db, userIds);
      return new Map([...addresses].map(([userId, address]) => [userId, [address]]));
    },
    async send(address: string, message: OutgoingMessage): Promise<SendResult> {
      // The address may have changed, or been refused for another message, since this one was queued for it.
      const [token, current] = await Promise.all([unsubscribeTokenOf(o.db, message.userId, address), deliverableAddress(o.db, message.userId)]);
      if (token === undefined || current !== address) return { outcome: 'permanent', reason: 'not sent: the address was changed, removed or refused since' };
      const unsubscribeUrl = `${o.publicBaseUrl}/api/email/unsubscribe/${token}`;
      const result = await o.smtp.send({ to: address, ...renderNotificationMail(message, unsubscribeUrl), unsubscribeUrl });
      return result.outcome === 'sent' ? { outcome: 'sent', providerId: result.messageId } : result;
    },
    async onPermanentFailure(db, userId, address) {
      await markBounced(db, userId, address, o.clock());
    },
  };
}
