import { eventStoreMigration } from '@invest/platform/event-store/event-store.migration';
import { IdempotencyKeysMigration } from '@invest/platform/idempotency/idempotency.migration';
import { deadLetterMigration } from '@invest/platform/messaging/dead-letter.migration';
import { AlertsSchema } from './0001-alerts-schema.js';
import { MembershipChanges } from './0003-membership-changes.js';
import { FiringPublications } from './0004-firing-publications.js';
import { CandidateIndexChanges } from './0005-candidate-index-changes.js';
import { UserFeeds } from './0006-user-feeds.js';
import { HotFiringUpdates } from './0007-hot-firing-updates.js';
import { DropUnreadFiringIndex } from './0008-drop-unread-firing-index.js';
import { FiringTextsNameAsset } from './0009-firing-texts-name-asset.js';
import { OperatorRateAsOf } from './0010-operator-rate-as-of.js';
import { PaidAccess } from './0011-paid-access.js';
import { ExactPrices } from './0012-exact-prices.js';
import { AccountNotices } from './0013-account-notices.js';

/** `idempotency_keys` (platform's `idempotent`): the Idempotency-Key of the two creates. */
class AlertsIdempotencyKeys extends IdempotencyKeysMigration {}

/** Every migration of the alerts database, in order. Names are stable: never rename one that shipped. */
export const migrations = [
  eventStoreMigration,
  deadLetterMigration,
  { name: '0001-alerts-schema', class: AlertsSchema },
  { name: '0002-idempotency-keys', class: AlertsIdempotencyKeys },
  { name: '0003-membership-changes', class: MembershipChanges },
  { name: '0004-firing-publications', class: FiringPublications },
  { name: '0005-candidate-index-changes', class: CandidateIndexChanges },
  { name: '0006-user-feeds', class: UserFeeds },
  { name: '0007-hot-firing-updates', class: HotFiringUpdates },
  { name: '0008-drop-unread-firing-index', class: DropUnreadFiringIndex },
  { name: '0009-firing-texts-name-asset', class: FiringTextsNameAsset },
  { name: '0010-operator-rate-as-of', class: OperatorRateAsOf },
  { name: '0011-paid-access', class: PaidAccess },
  { name: '0012-exact-prices', class: ExactPrices },
  { name: '0013-account-notices', class: AccountNotices },
];
