import { deadLetterMigration, eventStoreMigration, IdempotencyKeysMigration } from '@invest/platform';
import { AlertsSchema } from './0001-alerts-schema.js';
import { FiringPublications } from './0003-firing-publications.js';
import { CandidateIndexChanges } from './0004-candidate-index-changes.js';

/** `idempotency_keys` (platform's withIdempotency): the Idempotency-Key of the two creates. */
class AlertsIdempotencyKeys extends IdempotencyKeysMigration {}

/** Every migration of the alerts database, in order. Names are stable: never rename one that shipped. */
export const migrations = [
  eventStoreMigration,
  deadLetterMigration,
  { name: '0001-alerts-schema', class: AlertsSchema },
  { name: '0002-idempotency-keys', class: AlertsIdempotencyKeys },
  { name: '0003-firing-publications', class: FiringPublications },
  { name: '0004-candidate-index-changes', class: CandidateIndexChanges },
];
