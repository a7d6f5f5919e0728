import { type EmailConfirmReply, type EmailUnsubscribeReply, emailTokenRequestSchema } from '@invest/contracts';
import type { Db } from '@invest/platform/db/database';
import { parseOrThrow } from '@invest/platform/rpc/service-error';
import { writeSettings } from '../settings/settings.repository.js';
import { addressByConfirmToken, addressByUnsubscribeToken, markConfirmed } from './email-address.repository.js';
import { hashSecretToken } from '../channels/secret-token.js';
import { CONFIRM_LINK_TTL_MS } from './email-message.js';

/**
 * The links in mails, followed by whoever holds them (no signed-in user): confirming an address, and the
 * one-click unsubscribe, which turns the user's e-mail channel off (the address stays; settings turn it on again).
 */
export class EmailLinksService {
  constructor(private readonly o: { db: Db; clock: () => Date }) {}

  /** A link followed twice (or fetched first by a mail scanner) still says "confirmed". */
  async confirm(input: unknown): Promise<EmailConfirmReply> {
    const { token } = parseOrThrow(emailTokenRequestSchema, input);
    const hash = hashSecretToken(token);
    const found = await addressByConfirmToken(this.o.db, hash);
    if (!found) return { data: { status: 'invalid', language: null } };
    const now = this.o.clock();
    if (!found.confirmedAt) {
      if (now.getTime() - found.confirmSentAt.getTime() > CONFIRM_LINK_TTL_MS) return { data: { status: 'expired', language: found.language } };
      await markConfirmed(this.o.db, found.userId, hash, now);
    }
    return { data: { status: 'confirmed', language: found.language } };
  }

  async unsubscribe(input: unknown): Promise<EmailUnsubscribeReply> {
    const { token } = parseOrThrow(emailTokenRequestSchema, input);
    const found = await addressByUnsubscribeToken(this.o.db, token);
    if (!found) return { data: { status: 'invalid', language: null, address: null } };
    await writeSettings(this.o.db, found.userId, { channels: { email: false } }, this.o.clock());
    return { data: { status: 'unsubscribed', language: found.language, address: found.address } };
  }

  /** What the unsubscribe page shows; changes nothing. */
  async unsubscribeView(input: unknown): Promise<EmailUnsubscribeReply> {
    const { token } = parseOrThrow(emailTokenRequestSchema, input);
    const found = await addressByUnsubscribeToken(this.o.db, token);
    if (!found) return { data: { status: 'invalid', language: null, address: null } };
    return { data: { status: found.emailOn ? 'subscribed' : 'unsubscribed', language: found.language, address: found.address } };
  }
}
