import { ScreenerSchema } from './0001-screener-schema.js';

/** Every migration of the screener database, in order. Names are stable: never rename one that shipped. */
export const migrations = [{ name: '0001-screener-schema', class: ScreenerSchema }];
