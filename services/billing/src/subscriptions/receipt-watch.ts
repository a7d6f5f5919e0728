import type { Logger, SqlClient } from '@invest/platform';
import { setReceiptsMissing } from '../provider/notification.metrics.js';

/** How many overdue charges one check names in the log; the count covers them all. */
const LOGGED_PER_CHECK = 50;

/**
 * Charges with no fiscal receipt (54-FZ) `deadlineMs` after their payment: each is logged as an error once (per
 * instance: an operator follows it up with the provider), and while any is overdue the health ping names the
 * problem, so the gateway's `/ready` fails. A receipt arriving later clears it. Only charges paid since receipts
 * were introduced are watched (`receipt_watch.since`); declined charges have none. Each check sets the gauge
 * `invest_billing_receipts_missing` to the count.
 */
export class ReceiptWatch {
  private logged = new Set<string>();

  constructor(
    private readonly db: SqlClient,
    private readonly opts: { deadlineMs: number; clock: () => Date; logger: Logger },
  ) {}

  /** The health ping's problems: none, or how many charges have no receipt past the deadline. */
  async problems(): Promise<string[]> {
    const cutoff = new Date(this.opts.clock().getTime() - this.opts.deadlineMs);
    const rows = await this.db.query<{ payment_id: string; user_id: string; at: Date; total: string }>(
      `select payment_id, user_id, at, count(*) over () as total from payment_history
       where receipt_url is null and status <> 'failed' and at < $1 and at >= (select min(since) from receipt_watch)
       order by at limit ${LOGGED_PER_CHECK}`,
      [cutoff],
    );
    const minutes = Math.round(this.opts.deadlineMs / 60_000);
    const now = new Set<string>();
    for (const r of rows) {
      now.add(r.payment_id);
      if (this.logged.has(r.payment_id)) continue;
      // Ids and time only: the receipt's data and the payer's stay with the provider.
      this.opts.logger.error(
        { transactionId: r.payment_id, userId: r.user_id, paidAt: new Date(r.at).toISOString(), deadlineMinutes: minutes },
        'billing: a charge has no fiscal receipt (54-FZ) past the deadline after its payment; check it with the provider',
      );
    }
    // Forget the ones that got their receipt, so a later problem with them is told again.
    this.logged = now;
    const total = Number(rows[0]?.total ?? 0);
    setReceiptsMissing(total);
    return total === 0 ? [] : [`${total} charge(s) without a fiscal receipt ${minutes} minutes after payment`];
  }
}
