import { eventStoreMigration } from '@invest/platform/event-store/event-store.migration';
import { IdempotencyKeysMigration } from '@invest/platform/idempotency/idempotency.migration';
import { deadLetterMigration } from '@invest/platform/messaging/dead-letter.migration';
import { DeliverySchema } from './0001-delivery-schema.js';
import { TelegramSchema } from './0002-telegram.js';
import { PushSchema } from './0003-push.js';
import { EmailSchema } from './0004-email.js';
import { EmailBounces } from './0006-email-bounces.js';
import { Retention } from './0007-retention.js';
import { OneOpenGroup } from './0008-one-open-group.js';
import { AccountNotices } from './0009-account-notices.js';
import { FiringTrace } from './0010-firing-trace.js';

/** `idempotency_keys` (platform's `idempotent`). */
class DeliveryIdempotencyKeys extends IdempotencyKeysMigration {}

/** Every migration of the delivery database, in order. Names are stable: never rename one that shipped. */
export const migrations = [
  eventStoreMigration,
  // es_dead_letters of the NotificationFired consumer.
  deadLetterMigration,
  { name: '0001-delivery-schema', class: DeliverySchema },
  { name: '0002-telegram', class: TelegramSchema },
  { name: '0003-push', class: PushSchema },
  { name: '0004-email', class: EmailSchema },
  { name: '0005-idempotency-keys', class: DeliveryIdempotencyKeys },
  { name: '0006-email-bounces', class: EmailBounces },
  { name: '0007-retention', class: Retention },
  { name: '0008-one-open-group', class: OneOpenGroup },
  { name: '0009-account-notices', class: AccountNotices },
  { name: '0010-firing-trace', class: FiringTrace },
];
