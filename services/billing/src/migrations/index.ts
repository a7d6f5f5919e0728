import { eventStoreMigration } from '@invest/platform';
import { BillingSchema } from './0001-billing-schema.js';
import { PaymentGrantsAccess } from './0002-payment-grants-access.js';
import { PaymentCards } from './0003-payment-cards.js';
import { PaymentHistory } from './0004-payment-history.js';
import { PastDue } from './0005-past-due.js';
import { Receipts } from './0006-receipts.js';

/** Every migration of the billing database, in order. Names are stable: never rename one that shipped. */
export const migrations = [
  eventStoreMigration,
  { name: '0001-billing-schema', class: BillingSchema },
  { name: '0002-payment-grants-access', class: PaymentGrantsAccess },
  { name: '0003-payment-cards', class: PaymentCards },
  { name: '0004-payment-history', class: PaymentHistory },
  { name: '0005-past-due', class: PastDue },
  { name: '0006-receipts', class: Receipts },
];
