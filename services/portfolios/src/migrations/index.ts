import { eventStoreMigration } from '@invest/platform';
import { PortfoliosSchema } from './0001-portfolios-schema.js';

/** Every migration of the portfolios database, in order. Names are stable: never rename one that shipped. */
export const migrations = [eventStoreMigration, { name: '0001-portfolios-schema', class: PortfoliosSchema }];
