import { z } from 'zod';
import { assetRefSchema } from '../common/assets.js';

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'The date must be a date in the format YYYY-MM-DD.');

/**
 * `screener.closes.get`: the daily closes of some assets from `from` to `to` (market days, MARKET_TZ), plus each
 * asset's last close before `from` (so a caller can carry it into the range). Paged by `after`: at most
 * MAX_CLOSES_PER_REPLY closes a reply (NATS' 1 MB payload), ordered by asset id then date; `next_after` continues.
 */
export const getClosesRequestSchema = z.object({
  refs: z.array(assetRefSchema).min(1).max(500),
  from: isoDate,
  to: isoDate,
  /** Continue after this asset id and date (the previous reply's `next_after`). */
  after: z.object({ asset_id: z.number().int(), date: isoDate }).optional(),
});
export type GetClosesRequest = z.infer<typeof getClosesRequestSchema>;

/** Closes per reply: with their days and units below ~45 bytes each, a page stays under NATS' 1 MB. */
export const MAX_CLOSES_PER_REPLY = 20_000;

/**
 * One asset's closes in date order, packed: JSON numbers in two flat arrays parse about five times as fast as a date
 * and a decimal text per close (a value history reads ~260,000 of them). Pack with `packCloses`; read back as text
 * with `unpackCloses`.
 */
export const packedClosesSchema = z.object({
  /** The first close's market day. */
  start: isoDate,
  /** Each close's market day as days after `start` (0 first), increasing. */
  days: z.array(z.number().int().nonnegative()),
  /** Each close exactly, as a whole number of 10^-scale: a JSON number while it is a safe integer, its digits beyond. */
  scale: z.number().int().nonnegative(),
  units: z.array(z.union([z.number().int().refine(Number.isSafeInteger), z.string().regex(/^-?\d+$/)])),
});
export type PackedCloses = z.infer<typeof packedClosesSchema>;

export const getClosesReplySchema = z.object({
  data: z.array(z.object({ type: z.string(), id: z.number().int() }).extend(packedClosesSchema.shape)),
  next_after: z.object({ asset_id: z.number().int(), date: z.string() }).nullable(),
  /** Assets asked for that had no close at all: their history is being fetched (MOEX ISS); ask again later. */
  backfilling: z.array(assetRefSchema),
});
export type GetClosesReply = z.infer<typeof getClosesReplySchema>;

const DAY_MS = 86_400_000;
const dayNumber = (date: string) => Date.parse(`${date}T00:00:00Z`) / DAY_MS;

/** Packs closes (dates in order, each close plain decimal text as Postgres writes numeric) at the smallest common scale. */
export function packCloses(dates: readonly string[], closes: readonly string[]): PackedCloses {
  const parts = closes.map((text) => {
    const [int = '', fraction = ''] = text.split('.');
    return { int, fraction: fraction.replace(/0+$/, '') };
  });
  const scale = parts.reduce((max, p) => Math.max(max, p.fraction.length), 0);
  const first = dates.length ? dayNumber(dates[0]!) : 0;
  return {
    start: dates[0] ?? '1970-01-01',
    days: dates.map((d) => dayNumber(d) - first),
    scale,
    units: parts.map((p) => {
      const digits = p.int + p.fraction.padEnd(scale, '0');
      const n = Number(digits);
      return Number.isSafeInteger(n) ? n : BigInt(digits).toString();
    }),
  };
}

/** The dates and closes (canonical decimal text: `250.1`, not `250.10`) of packed closes. */
export function unpackCloses(packed: PackedCloses): { dates: string[]; closes: string[] } {
  const first = dayNumber(packed.start);
  return {
    dates: packed.days.map((d) => new Date((first + d) * DAY_MS).toISOString().slice(0, 10)),
    closes: packed.units.map((u) => {
      const text = String(u);
      const negative = text.startsWith('-');
      const digits = (negative ? text.slice(1) : text).padStart(packed.scale + 1, '0');
      const int = digits.slice(0, digits.length - packed.scale);
      const fraction = digits.slice(digits.length - packed.scale).replace(/0+$/, '');
      return `${negative ? '-' : ''}${int}${fraction ? `.${fraction}` : ''}`;
    }),
  };
}
