import type { DeliveryChannel, DeliveryLanguage, NotificationFiredV1 } from '@invest/contracts';
import type { SqlClient } from '@invest/platform';

/**
 * One message of one user on one channel: the firings of one move (one rate batch, or a short window), or
 * of the quiet hours (a digest). Rendered once by the dispatcher in the user's language; each channel only
 * formats it (HTML for Telegram and e-mail, JSON for web push).
 */
export interface OutgoingMessage {
  userId: string;
  language: DeliveryLanguage;
  /** One line: "LKOH +5,2 %: 3 уведомления". */
  title: string;
  /** Each firing's body, in the order they fired. */
  lines: string[];
  /** Absolute link to the page the message is about (the inbox for several firings). */
  url: string;
  digest: boolean;
  firings: readonly NotificationFiredV1[];
}

/** What a send came to. A retryable failure is tried again with backoff (or after `afterMs`, a 429's wait). */
export type SendResult =
  | { outcome: 'sent'; providerId?: string }
  | { outcome: 'retry'; reason: string; afterMs?: number }
  | { outcome: 'permanent'; reason: string };

/** A channel that leaves the app: Telegram, web push, e-mail. In-app is the inbox and needs no sender. */
export interface ChannelSender {
  readonly channel: Exclude<DeliveryChannel, 'in_app'>;
  /**
   * Where each user's messages go on this channel now (a linked chat, each push subscription, a confirmed
   * address), for many users at once; a user left out: the channel is not usable for them and nothing is sent.
   */
  addresses(db: SqlClient, userIds: readonly string[]): Promise<Map<string, string[]>>;
  send(address: string, message: OutgoingMessage): Promise<SendResult>;
  /** What a permanent failure changes (a blocked bot unlinks the chat; a 404/410 deletes the subscription). */
  onPermanentFailure?(db: SqlClient, userId: string, address: string, reason: string): Promise<void>;
}
