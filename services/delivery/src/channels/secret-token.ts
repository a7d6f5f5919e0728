import { createHash } from 'node:crypto';

/**
 * How single-use link tokens (Telegram deep links, e-mail confirmations) are kept: only their SHA-256, so a read
 * of the database cannot link a chat or confirm an address.
 */
export const hashSecretToken = (token: string): string => createHash('sha256').update(token).digest('hex');
