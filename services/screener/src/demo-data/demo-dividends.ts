import { z } from 'zod';

const monthDay = z
  .string()
  .regex(/^(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, 'record must be MM-DD')
  .refine((md) => {
    const [m, d] = md.split('-').map(Number) as [number, number];
    // Validated against a leap year so 02-29 is allowed (placed on 02-28 in other years).
    return d <= new Date(Date.UTC(2024, m, 0)).getUTCDate();
  }, 'record day does not exist in that month');

/** `data/demo-dividends.json`. */
export const demoDividendsFileSchema = z.object({
  notice: z.string(),
  dividends: z.array(
    z.object({
      ticker: z.string().min(1),
      currency: z.string().regex(/^[A-Z]{3}$/),
      payments: z.array(z.object({ record: monthDay, value: z.number().positive() })),
    }),
  ),
});
export type DemoDividendsFile = z.infer<typeof demoDividendsFileSchema>;

export interface PlacedDividend {
  ticker: string;
  recordDate: string;
  value: number;
  currency: string;
}

/**
 * The first date on or after `today` (`YYYY-MM-DD`) that falls on month-day `record` (`MM-DD`).
 * Feb 29 falls on Feb 28 in years without it.
 */
export function nextOccurrence(record: string, today: string): string {
  const [m, d] = record.split('-').map(Number) as [number, number];
  const year = Number(today.slice(0, 4));
  for (const y of [year, year + 1]) {
    const lastDay = new Date(Date.UTC(y, m, 0)).getUTCDate();
    const date = `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(Math.min(d, lastDay)).padStart(2, '0')}`;
    if (date >= today) return date;
  }
  throw new Error(`unreachable: no occurrence of ${record} on or after ${today}`);
}

/** Places every demo payment at its next occurrence on or after `today`. */
export function placeDemoDividends(file: DemoDividendsFile, today: string): PlacedDividend[] {
  return file.dividends.flatMap((entry) =>
    entry.payments.map((p) => ({ ticker: entry.ticker, recordDate: nextOccurrence(p.record, today), value: p.value, currency: entry.currency })),
  );
}
