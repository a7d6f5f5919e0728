import { createHash } from 'node:crypto';
import type { ImportedDealFields } from '@invest/contracts';

/**
 * A stable fingerprint of each readable row, stored with the deal it creates: the portfolio, the row in
 * canonical form (so `250,5` and `250.50`, `;` and `,` files, `DD.MM.YYYY` and ISO dates agree) and how many
 * identical rows came before it in the file. Importing the same file again finds every fingerprint stored and
 * adds nothing, while two identical deals on one day (two rows) stay two deals.
 */
export function importFingerprints(portfolioId: number, deals: readonly (ImportedDealFields | null)[]): (string | null)[] {
  const seen = new Map<string, number>();
  return deals.map((d) => {
    if (!d) return null;
    const canonical = [d.date, d.type, d.asset_type ?? '', d.ticker ?? '', d.isin ?? '', d.quantity, d.price, d.commission].join('|');
    const occurrence = seen.get(canonical) ?? 0;
    seen.set(canonical, occurrence + 1);
    return createHash('sha256').update(`${portfolioId}\n${canonical}\n${occurrence}`).digest('hex');
  });
}
