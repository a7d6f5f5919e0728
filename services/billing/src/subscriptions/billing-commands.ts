import type { BillingEvent } from '@invest/contracts';
import { type CommandResult, type Db, eventIdFor, handleCommand, readStream, type SqlClient } from '@invest/platform';
import { type BillingCommand, type BillingState, billingDecider, userStream } from './subscription.decider.js';
import { projectBillingEvent } from './subscription.projection.js';

/** Re-decisions after a version conflict before a 409 (the provider then retries the notification). */
export const COMMAND_RETRIES = 10;

/** Ids of a payment's events: the event store refuses a second record of the same provider TransactionId. */
export const paymentEventIds = (transactionId: string) => [eventIdFor('payment', transactionId), eventIdFor('payment', transactionId, 'period')];
/** The subscription a payment would start: the same id however often the payment is reported. */
export const subscriptionIdFor = (transactionId: string) => eventIdFor('subscription', transactionId);

/**
 * Runs one command against a user's billing stream and projects what it appended into the read models,
 * all in one transaction: the events, the tables and the outbox commit together or not at all.
 */
export function runBillingCommand(db: Db, command: BillingCommand, eventIds?: string[]): Promise<CommandResult<BillingState, BillingEvent>> {
  return db.transaction(async (tx) => {
    // A user's commands rarely race, but a burst (the provider's retries, a client racing its webhook) may
    // need more than the default few re-decisions before one wins; each costs one stream read.
    const result = await handleCommand(tx, userStream(command.userId), command, billingDecider, { ...(eventIds ? { eventIds } : {}), retries: COMMAND_RETRIES });
    const first = result.nextExpectedVersion - result.newEvents.length + 1;
    for (const [i, event] of result.newEvents.entries()) await projectBillingEvent(tx, event, first + i);
    return result;
  });
}

/** A user's billing state as the stream has it now (to check a command before asking the provider). */
export async function readBillingState(db: SqlClient, userId: string): Promise<BillingState> {
  const events = await readStream(db, userStream(userId));
  return events.reduce((state, e) => billingDecider.evolve(state, { type: e.type, data: e.data } as BillingEvent), billingDecider.initialState());
}
