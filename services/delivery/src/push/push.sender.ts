import type { Agent } from 'node:https';
import type { Db, Logger, SqlClient } from '@invest/platform';
import webpush from 'web-push';
import type { ChannelSender, OutgoingMessage, SendResult } from '../channels/channel.js';
import { pushPayload } from './push-payload.js';
import { deletePushSubscription, findPushSubscription, pushEndpointsOf } from './push-subscription.repository.js';
import type { VapidKeys } from './vapid-keys.js';

/** How long a push service keeps a message for a device that is offline: a price move a day old is news no more. */
export const PUSH_TTL_SECONDS = 24 * 3600;
/** A socket idle this long fails the attempt, which is retried. */
const SOCKET_TIMEOUT_MS = 10_000;
/** The longest `Retry-After` obeyed as given; a longer one waits this long and asks again. */
const MAX_RETRY_AFTER_MS = 3600_000;

/** Starts the reason of a permanent failure that removes the subscription (the push service says it is no more). */
const GONE = 'push subscription gone';

export interface PushSenderOptions {
  db: Db;
  vapid: VapidKeys;
  /** The VAPID `sub` claim: `mailto:` or `https:` contact of this server's operator. */
  subject: string;
  /** An agent trusting the local push service's certificate besides the system CAs (development and tests only). */
  agent?: Agent;
  logger: Logger;
}

/**
 * Web Push (RFC 8030/8291/8292) through the `web-push` library: each of the user's subscriptions is an address;
 * the message goes encrypted (aes128gcm) to the browser's push service, signed with our VAPID key.
 */
export class PushSender implements ChannelSender {
  readonly channel = 'push' as const;

  constructor(private readonly o: PushSenderOptions) {}

  addresses(db: SqlClient, userIds: readonly string[]): Promise<Map<string, string[]>> {
    return pushEndpointsOf(db, userIds);
  }

  async send(endpoint: string, message: OutgoingMessage): Promise<SendResult> {
    const sub = await findPushSubscription(this.o.db, message.userId, endpoint);
    // Unsubscribed (or found gone by another message) after this message was queued.
    if (!sub) return { outcome: 'permanent', reason: 'the browser unsubscribed before the message was sent' };
    try {
      const res = await webpush.sendNotification({ endpoint, keys: { p256dh: sub.p256dh, auth: sub.auth } }, JSON.stringify(pushPayload(message)), {
        TTL: PUSH_TTL_SECONDS,
        urgency: 'normal',
        contentEncoding: 'aes128gcm',
        vapidDetails: { subject: this.o.subject, publicKey: this.o.vapid.publicKey, privateKey: this.o.vapid.privateKey },
        timeout: SOCKET_TIMEOUT_MS,
        ...(this.o.agent ? { agent: this.o.agent } : {}),
      });
      const location = res.headers.location;
      return { outcome: 'sent', ...(typeof location === 'string' ? { providerId: location } : {}) };
    } catch (err) {
      const result = sendFailure(err);
      // The endpoint is a capability URL: only its origin goes to the log.
      this.o.logger.info({ pushService: originOf(endpoint), outcome: result.outcome, reason: 'reason' in result ? result.reason : undefined }, 'web push not accepted');
      return result;
    }
  }

  /** A subscription the push service reports gone (404/410) is deleted: it never comes back. */
  async onPermanentFailure(db: SqlClient, userId: string, endpoint: string, reason: string): Promise<void> {
    if (reason.startsWith(GONE)) await deletePushSubscription(db, userId, endpoint);
  }
}

/** What a failed `sendNotification` comes to (RFC 8030 §5-§8; autopush and FCM answer the same codes). */
export function sendFailure(err: unknown): SendResult {
  if (err instanceof webpush.WebPushError) {
    const status = err.statusCode;
    if (status === 404 || status === 410) return { outcome: 'permanent', reason: `${GONE} (HTTP ${status}); removed` };
    if (status === 429 || status >= 500) {
      const afterMs = retryAfterMs(err.headers?.['retry-after']);
      return { outcome: 'retry', reason: `push service answered HTTP ${status}`, ...(afterMs === undefined ? {} : { afterMs }) };
    }
    if (status === 413) return { outcome: 'permanent', reason: 'the message is too large for the push service (HTTP 413)' };
    if (status === 401 || status === 403) return { outcome: 'permanent', reason: `the push service refused our VAPID signature (HTTP ${status}); were the VAPID keys changed?` };
    return { outcome: 'permanent', reason: `push service answered HTTP ${status}` };
  }
  // No answer: refused, reset, timed out, TLS failed. The subscription is fine as far as anyone knows.
  const e = err as { code?: unknown; message?: unknown };
  const what = typeof e?.code === 'string' ? e.code : typeof e?.message === 'string' ? e.message : String(err);
  return { outcome: 'retry', reason: `push service not reached: ${what}` };
}

/** `Retry-After`: seconds or an HTTP date (RFC 9110 §10.2.3), in ms from now; undefined when absent or unreadable. */
export function retryAfterMs(header: unknown, now = Date.now()): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (typeof value !== 'string' || !value.trim()) return undefined;
  const ms = /^\d+$/.test(value.trim()) ? Number(value.trim()) * 1000 : Date.parse(value) - now;
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}

function originOf(endpoint: string): string {
  try {
    return new URL(endpoint).origin;
  } catch {
    return 'invalid URL';
  }
}
