import { eventStoreMigration } from '@invest/platform/event-store/event-store.migration';
import { deadLetterMigration } from '@invest/platform/messaging/dead-letter.migration';
import { ScreenerSchema } from './0001-screener-schema.js';
import { MarketDataSchema } from './0002-market-data.js';
import { DividendsCurrencyKey } from './0003-dividends-currency-key.js';
import { UsedAssetChanges } from './0004-used-asset-changes.js';
import { CustomAssetsIdempotencyKeys } from './0005-custom-assets-idempotency-keys.js';
import { AssetsHotRateUpdates } from './0006-assets-hot-rate-updates.js';
import { ClosesRollOver } from './0007-closes-roll-over.js';
import { EventsDataAsJson } from './0008-events-data-as-json.js';
import { CustomAssetDeletions } from './0009-custom-asset-deletions.js';

/**
 * Every migration of the screener database, in order: the platform's event store (RatesUpdated is recorded
 * there, in the transaction of the rates) and its consumers' dead letters, then the service's own. Names are stable: never rename one that shipped.
 */
export const migrations = [
  eventStoreMigration,
  deadLetterMigration,
  { name: '0001-screener-schema', class: ScreenerSchema },
  { name: '0002-market-data', class: MarketDataSchema },
  { name: '0003-dividends-currency-key', class: DividendsCurrencyKey },
  { name: '0004-used-asset-changes', class: UsedAssetChanges },
  { name: '0005-custom-assets-idempotency-keys', class: CustomAssetsIdempotencyKeys },
  { name: '0006-assets-hot-rate-updates', class: AssetsHotRateUpdates },
  { name: '0007-closes-roll-over', class: ClosesRollOver },
  { name: '0008-events-data-as-json', class: EventsDataAsJson },
  { name: '0009-custom-asset-deletions', class: CustomAssetDeletions },
];
