/**
 * Money in billing is an exact decimal with two places, carried as a string (`"299.00"`) and compared in
 * integer minor units (kopecks, cents): never binary floating point.
 */
const AMOUNT = /^(\d{1,12})(?:\.(\d{1,2}))?$/;

/** `"299"`, `"299.0"`, `"299.00"` → 29900n; anything else (negative, 3+ places, exponent) → undefined. */
export function toMinorUnits(amount: string): bigint | undefined {
  const m = AMOUNT.exec(amount.trim());
  if (!m) return undefined;
  return BigInt(m[1]!) * 100n + BigInt((m[2] ?? '').padEnd(2, '0'));
}

/** 29900n → `"299.00"`. */
export function fromMinorUnits(minor: bigint): string {
  const abs = minor < 0n ? -minor : minor;
  return `${minor < 0n ? '-' : ''}${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`;
}

/**
 * An amount as a provider sends it: a form string (`"299.00"`) or a JSON number (`299`, `299.9`). A JSON
 * number is accepted only when it has at most two decimal places exactly, so no rounding ever happens.
 */
export function normalizeAmount(value: unknown): string | undefined {
  if (typeof value === 'string') {
    const minor = toMinorUnits(value);
    return minor === undefined ? undefined : fromMinorUnits(minor);
  }
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0 && value < 1e12) {
    const text = value.toFixed(2);
    return Number(text) === value ? text : undefined;
  }
  return undefined;
}

/** Whether two amounts are the same money (`"299"`, `"299.00"`); a missing or malformed one is none. */
export function sameAmount(a: string | null | undefined, b: string | null | undefined): boolean {
  const x = a == null ? undefined : toMinorUnits(a);
  return x !== undefined && x === (b == null ? undefined : toMinorUnits(b));
}
