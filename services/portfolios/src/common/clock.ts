/** The service's notion of now; tests may fix it. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

/** `YYYY-MM-DD` of an instant in UTC. */
export const utcDate = (d: Date): string => d.toISOString().slice(0, 10);

/**
 * The latest date that is not in the future anywhere on Earth (UTC+14). A deal dated later is rejected;
 * using the earliest-ahead time zone never refuses a user's "today".
 */
export const latestAllowedDealDate = (now: Date): string => utcDate(new Date(now.getTime() + 14 * 3_600_000));
