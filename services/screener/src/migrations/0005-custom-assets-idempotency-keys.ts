import { IdempotencyKeysMigration } from '@invest/platform';

/** `idempotency_keys` (platform's `idempotent`): the Idempotency-Key of custom asset creates. */
export class CustomAssetsIdempotencyKeys extends IdempotencyKeysMigration {}
