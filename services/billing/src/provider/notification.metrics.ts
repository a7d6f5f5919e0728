import { ErrorCode } from '@invest/contracts';
import { counter, gauge, ServiceError } from '@invest/platform';

/** The provider's notifications billing handles (it takes no Check notification). */
export type NotificationType = 'pay' | 'fail' | 'refund' | 'recurrent' | 'receipt';

/**
 * What a notification billing answered `{code: 0}` came to: `accepted` (recorded now), `duplicate` (recorded
 * before: the provider repeats until it gets its answer), `unattributed` (a payment of no usable account, kept
 * for an operator), `ignored` (nothing to record: a status that changes nothing, an unknown account).
 */
export type NotificationOutcome = 'accepted' | 'duplicate' | 'unattributed' | 'ignored';

const notifications = counter(
  'invest_billing_notifications_total',
  'CloudPayments notifications handled, by type and outcome (accepted, duplicate, unattributed, ignored; refused: invalid_signature, rejected, unavailable, error).',
  ['type', 'outcome'],
);

const receiptsMissing = gauge('invest_billing_receipts_missing', 'Charges with no fiscal receipt (54-FZ) past the deadline after their payment (an hour), as last checked.');

/** What a refused notification counts as: the error the provider is answered with. */
function refusal(err: unknown): string {
  if (!(err instanceof ServiceError)) return 'error';
  if (err.code === ErrorCode.Unauthenticated) return 'invalid_signature';
  if (err.code === ErrorCode.Validation) return 'rejected';
  // 503: the provider sends it again later (a receipt ahead of its payment, the provider's API away).
  if (err.code === ErrorCode.Unavailable) return 'unavailable';
  return 'error';
}

/** Handles one notification and counts what it came to; the provider's answer is `{code: 0}` or the error. */
export async function countedNotification(type: NotificationType, handle: () => Promise<NotificationOutcome>): Promise<{ code: 0 }> {
  try {
    notifications.inc({ type, outcome: await handle() });
    return { code: 0 };
  } catch (err) {
    notifications.inc({ type, outcome: refusal(err) });
    throw err;
  }
}

export function setReceiptsMissing(count: number): void {
  receiptsMissing.set(count);
}
