import { IdempotencyKeysMigration } from '@invest/platform/idempotency/idempotency.migration';

/** `idempotency_keys` (platform's `idempotent`): the Idempotency-Key of custom asset creates. */
export class CustomAssetsIdempotencyKeys extends IdempotencyKeysMigration {}
