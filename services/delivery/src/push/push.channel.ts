import { Agent } from 'node:https';
import { rootCertificates } from 'node:tls';
import type { Db, Logger } from '@invest/platform';
import { PushSender } from './push.sender.js';
import { PushService } from './push.service.js';
import { developmentVapidKeys, type VapidKeys } from './vapid-keys.js';

/** The web push part of the delivery configuration (`VAPID_*`, `WEB_PUSH_TEST_CA`). */
export interface PushConfig {
  /** From `VAPID_PUBLIC_KEY` / `VAPID_PRIVATE_KEY`. */
  vapid?: VapidKeys;
  /** `VAPID_SUBJECT`. */
  subject: string;
  /** Without keys: generate a pair once and keep it in `vapid_keys` (development, tests) or leave the channel off (production). */
  generateKeys: boolean;
  /** PEM of a CA to trust besides the system ones: the local push service's (development, tests; never production). */
  testCa?: string;
  /** Accept subscriptions whose endpoint is on this machine or a private network (development, tests). */
  allowPrivateEndpoints: boolean;
}

/** What tests and `createDeliveryApp` without a configuration get: generated keys, private endpoints allowed. */
export const DEVELOPMENT_PUSH_CONFIG: PushConfig = { subject: 'mailto:dev@example.com', generateKeys: true, allowPrivateEndpoints: true };

export interface PushChannel {
  service: PushService;
  /** Absent when the channel is off. */
  sender?: PushSender;
}

/** The web push channel: its keys (configured, or generated once in development), the subscriptions service and the sender. */
export async function createPushChannel({ db, config, logger }: { db: Db; config: PushConfig; logger: Logger }): Promise<PushChannel> {
  const vapid = config.vapid ?? (config.generateKeys ? await developmentVapidKeys(db) : undefined);
  const service = new PushService({ db, vapid, allowPrivateEndpoints: config.allowPrivateEndpoints });
  if (!vapid) {
    logger.warn('web push is off: set VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY and VAPID_SUBJECT (npx web-push generate-vapid-keys)');
    return { service };
  }
  // Trusting one more CA must not mean trusting fewer: real push services keep working beside the local one.
  const agent = config.testCa ? new Agent({ ca: [...rootCertificates, config.testCa] }) : undefined;
  const sender = new PushSender({ db, vapid, subject: config.subject, logger, ...(agent ? { agent } : {}) });
  return { service, sender };
}
