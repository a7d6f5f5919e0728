import { BlockList, isIP } from 'node:net';
import {
  deletePushSubscriptionSchema,
  type PushKeyReply,
  pushSubscriptionSchema,
  type PushSubscriptionReply,
} from '@invest/contracts';
import type { Db } from '@invest/platform/db/database';
import { parseOrThrow, ServiceError } from '@invest/platform/rpc/service-error';
import { deletePushSubscription, savePushSubscription } from './push-subscription.repository.js';
import type { VapidKeys } from './vapid-keys.js';

export interface PushServiceOptions {
  db: Db;
  /** Absent: the channel is off (production without VAPID keys). */
  vapid: VapidKeys | undefined;
  /**
   * Accept endpoints on this machine or a private network (the local push service of development and tests).
   * Off in production: the server POSTs to whatever endpoint a user registers, which must not be an inside address.
   */
  allowPrivateEndpoints: boolean;
}

const OFF_MESSAGE = 'Web push is not configured on this server (VAPID keys are not set).';

/** The browser side of web push: the key browsers subscribe with, and the subscriptions each user's browsers made. */
export class PushService {
  constructor(private readonly o: PushServiceOptions) {}

  get enabled(): boolean {
    return this.o.vapid !== undefined;
  }

  key(): PushKeyReply {
    if (!this.o.vapid) throw ServiceError.unavailable(OFF_MESSAGE, 'not_done');
    return { data: { public_key: this.o.vapid.publicKey } };
  }

  /**
   * Keeps a browser's subscription for this user; the same endpoint again renews its keys (idempotent). An endpoint
   * registered by another user is a 409: the browser should drop its subscription and make a new one.
   */
  async subscribe(userId: string, input: unknown): Promise<PushSubscriptionReply> {
    const req = parseOrThrow(pushSubscriptionSchema, input);
    if (!this.o.vapid) throw ServiceError.unavailable(OFF_MESSAGE, 'not_done');
    if (!this.o.allowPrivateEndpoints && isPrivateHost(new URL(req.endpoint).hostname)) {
      throw ServiceError.validation({ endpoint: ["The endpoint must be a push service's public address."] });
    }
    const saved = await savePushSubscription(this.o.db, userId, { endpoint: req.endpoint, p256dh: req.keys.p256dh, auth: req.keys.auth });
    if (!saved) {
      throw ServiceError.conflict('This push subscription belongs to another user. Unsubscribe it in this browser and subscribe again.');
    }
    return { data: { endpoint: saved.endpoint, created_at: saved.createdAt.toISOString() } };
  }

  /** Removes this user's subscription of the endpoint; none (or another user's) is no error and changes nothing. */
  async unsubscribe(userId: string, input: unknown): Promise<{ deleted: boolean }> {
    const req = parseOrThrow(deletePushSubscriptionSchema, input);
    return { deleted: await deletePushSubscription(this.o.db, userId, req.endpoint) };
  }
}

const privateRanges = new BlockList();
for (const [net, prefix] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.168.0.0', 16]] as const) {
  privateRanges.addSubnet(net, prefix, 'ipv4');
}
// IPv4-mapped IPv6 addresses (::ffff:127.0.0.1) are checked against the IPv4 ranges by BlockList itself.
for (const [net, prefix] of [['::', 127], ['fc00::', 7], ['fe80::', 10]] as const) privateRanges.addSubnet(net, prefix, 'ipv6');

/**
 * `localhost` and addresses of this machine or a private network, written as such. A public name that resolves to
 * one is not caught here (README, "Web push"): the deployment's egress rules are the real fence.
 */
export function isPrivateHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const version = isIP(host);
  if (version === 0) return false;
  return privateRanges.check(host, version === 4 ? 'ipv4' : 'ipv6');
}
