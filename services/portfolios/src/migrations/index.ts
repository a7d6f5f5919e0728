import { deadLetterMigration, eventStoreMigration } from '@invest/platform';
import { PortfoliosSchema } from './0001-portfolios-schema.js';
import { PortfoliosIdempotencyKeys } from './0002-idempotency-keys.js';
import { AssetDescriptionPosition } from './0003-asset-description-position.js';
import { CustomAssetUses } from './0004-custom-asset-uses.js';
import { AssetDeletionFences } from './0005-asset-deletion-fences.js';
import { DealImportFingerprints } from './0006-deal-import-fingerprints.js';

/** Every migration of the portfolios database, in order. Names are stable: never rename one that shipped. */
export const migrations = [
  eventStoreMigration,
  deadLetterMigration,
  { name: '0001-portfolios-schema', class: PortfoliosSchema },
  { name: '0002-idempotency-keys', class: PortfoliosIdempotencyKeys },
  { name: '0003-asset-description-position', class: AssetDescriptionPosition },
  { name: '0004-custom-asset-uses', class: CustomAssetUses },
  { name: '0005-asset-deletion-fences', class: AssetDeletionFences },
  { name: '0006-deal-import-fingerprints', class: DealImportFingerprints },
];
