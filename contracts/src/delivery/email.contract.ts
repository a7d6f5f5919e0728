import { z } from 'zod';
import { deliveryLanguageSchema } from './delivery.contract.js';

/**
 * The links in e-mails (issue 32): confirming an address and the one-click unsubscribe (RFC 8058). Whoever
 * holds the token is the address's owner; there is no signed-in user. The gateway renders the pages in
 * `language` (the user's; null when the token names nobody, then the browser's).
 */

/** A token from a mail's link: base64url, as the delivery service makes them. */
export const emailTokenSchema = z.string().regex(/^[A-Za-z0-9_-]{16,128}$/, 'must be a token from an e-mail link');
export const emailTokenRequestSchema = z.object({ token: emailTokenSchema });
export type EmailTokenRequest = z.infer<typeof emailTokenRequestSchema>;

/** `delivery.email.confirm`: the address is confirmed (again, for a link followed twice), or the link is unknown or too old. */
export const emailConfirmReplySchema = z.object({
  data: z.object({ status: z.enum(['confirmed', 'invalid', 'expired']), language: deliveryLanguageSchema.nullable() }),
});
export type EmailConfirmReply = z.infer<typeof emailConfirmReplySchema>;

/**
 * `delivery.email.unsubscribe` (the one-click POST: e-mail turned off) and `delivery.email.unsubscribe-view`
 * (the page a GET shows, which changes nothing): whether e-mail is on for the link's user now.
 */
export const emailUnsubscribeReplySchema = z.object({
  data: z.object({
    status: z.enum(['subscribed', 'unsubscribed', 'invalid']),
    language: deliveryLanguageSchema.nullable(),
    address: z.string().nullable(),
  }),
});
export type EmailUnsubscribeReply = z.infer<typeof emailUnsubscribeReplySchema>;
