import { IdempotencyKeysMigration } from '@invest/platform';

/** `idempotency_keys` (platform's `idempotent`): the Idempotency-Key of portfolio, deal, watchlist and item creates. */
export class PortfoliosIdempotencyKeys extends IdempotencyKeysMigration {}
