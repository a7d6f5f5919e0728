/**
 * The direction of a price target as the alert dialog asks it, with the rule the alerts service applies
 * (`operatorFor`): `above` needs a target over the current rate, `below` one under it; anything else is already
 * reached and the API refuses it. Compared as decimal text, as the service compares its Decimals: a target of
 * 1000000000000.00000001 is above a rate of 1e12 even though a double cannot tell them apart.
 */
export type PriceDirection = 'above' | 'below';

/** The decimal text (`123.45`) of a rate the API answered as a JSON number: the decimal its shortest text says. */
export function rateText(rate: number): string {
  const s = String(rate);
  if (!/e/i.test(s)) return s;
  // 1e-7 and the like: exact enough for a comparison with a target of at most 8 decimal places.
  return rate.toFixed(20).replace(/\.?0+$/, '');
}

/** -1, 0 or 1 as decimal texts `a` and `b` (`-?digits(.digits)?`, what parseDecimalInput gives) compare. */
export function compareDecimalText(a: string, b: string): -1 | 0 | 1 {
  const neg = (s: string) => s.startsWith('-');
  const abs = (s: string) => (neg(s) ? s.slice(1) : s);
  const zero = (s: string) => /^[0.]*$/.test(abs(s));
  const signOf = (s: string) => (zero(s) ? 0 : neg(s) ? -1 : 1);
  const sa = signOf(a);
  const sb = signOf(b);
  if (sa !== sb) return sa < sb ? -1 : 1;
  if (sa === 0) return 0;
  const [ai = '', af = ''] = abs(a).split('.');
  const [bi = '', bf = ''] = abs(b).split('.');
  const aInt = ai.replace(/^0+/, '');
  const bInt = bi.replace(/^0+/, '');
  const width = Math.max(af.length, bf.length);
  const aDigits = aInt.padStart(Math.max(aInt.length, bInt.length), '0') + af.padEnd(width, '0');
  const bDigits = bInt.padStart(Math.max(aInt.length, bInt.length), '0') + bf.padEnd(width, '0');
  const c = aDigits === bDigits ? 0 : aDigits < bDigits ? -1 : 1;
  return (sa < 0 ? -c : c) as -1 | 0 | 1;
}

/** The direction a target points from the rate (null when they are equal). */
export function directionOf(target: string, rate: number): PriceDirection | null {
  const c = compareDecimalText(target, rateText(rate));
  return c > 0 ? 'above' : c < 0 ? 'below' : null;
}

/** Whether the rate has already reached `target` in `direction` (the API answers such a target with a 422). */
export function alreadyReached(target: string, rate: number, direction: PriceDirection): boolean {
  return directionOf(target, rate) !== direction;
}

/** How far the target is from the rate, in percent of the rate (+5.2 for 5.2 % above); null without a usable rate. */
export function distancePercent(target: string, rate: number | null): number | null {
  if (rate === null || !(rate > 0)) return null;
  const t = Number(target);
  return Number.isFinite(t) ? (t / rate - 1) * 100 : null;
}

/** A price target's comparison as a reader writes it, `≥` / `≤`, not the API's `>=` / `<=`. */
export function operatorSign(operator: '>=' | '<='): string {
  return operator === '>=' ? '≥' : '≤';
}
