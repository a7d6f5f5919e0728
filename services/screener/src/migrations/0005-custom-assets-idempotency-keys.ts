import { IdempotencyKeysMigration } from '@invest/platform';

/** `idempotency_keys` (platform's withIdempotency): the Idempotency-Key of custom asset creates. */
export class CustomAssetsIdempotencyKeys extends IdempotencyKeysMigration {}
