import { Agent } from 'node:https';
import { rootCertificates } from 'node:tls';
import type { Db, Logger } from '@invest/platform';
import type { PushConfig } from './push.config.js';
import { PushSender } from './push.sender.js';
import { PushService } from './push.service.js';
import { developmentVapidKeys } from './vapid-keys.js';

export { DEVELOPMENT_PUSH_CONFIG, type PushConfig } from './push.config.js';

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
