import { packCloses } from '@invest/contracts';
import { type AssetCloses, type DailyClose, dayNumber } from './value-history.js';

/** An asset's closes from one reply, checked: day numbers, unit counts and their scale. */
export interface ClosesPage {
  days: number[];
  units: (number | string)[];
  scale: number;
}

/**
 * A reply's row of closes checked cell by cell (each day a whole number after the previous one, also across pages;
 * each unit count a safe integer or digits), with its day offsets turned into day numbers in place.
 */
export function checkedPage(row: { start: string; days: unknown[]; units: unknown[]; scale: number }, previousPage: ClosesPage | undefined): ClosesPage {
  const { days, units } = row;
  if (days.length !== units.length) throw new TypeError('days and units differ in length');
  const start = dayNumber(row.start);
  let previous = previousPage?.days.at(-1) ?? -Infinity;
  for (let i = 0; i < days.length; i++) {
    const offset = days[i];
    const day = start + (offset as number);
    if (typeof offset !== 'number' || !Number.isInteger(day) || day <= previous) throw new TypeError('a day is not after the previous one');
    const u = units[i];
    if (!(typeof u === 'number' ? Number.isSafeInteger(u) : typeof u === 'string' && /^-?\d+$/.test(u))) throw new TypeError('a close is not a unit count');
    days[i] = previous = day;
  }
  return { days: days as number[], units: units as (number | string)[], scale: row.scale };
}

/**
 * An asset's pages as one AssetCloses in typed arrays where the values allow (unit counts past 2^53 stay digits in a
 * plain array): their storage lies outside the collector's young space, which otherwise copied a portfolio's
 * ~260,000 closes on every collection during the computation.
 */
export function joinPages(pages: readonly ClosesPage[]): AssetCloses {
  const n = pages.reduce((sum, p) => sum + p.days.length, 0);
  const days = new Int32Array(n);
  const scales = new Uint8Array(n);
  const units = pages.every((p) => p.units.every((u) => typeof u === 'number')) ? new Float64Array(n) : new Array<number | string>(n);
  let at = 0;
  for (const p of pages) {
    for (let i = 0; i < p.days.length; i++, at++) {
      days[at] = p.days[i]!;
      units[at] = p.units[i]!;
      scales[at] = p.scale;
    }
  }
  return { days, units, scales };
}

/** `DailyClose`s (in date order) as AssetCloses, packed as the screener packs them and read as its reply is. */
export function assetCloses(list: readonly DailyClose[]): AssetCloses {
  const packed = packCloses(
    list.map((c) => c.date),
    list.map((c) => c.close.toString()),
  );
  return joinPages([checkedPage(packed, undefined)]);
}
