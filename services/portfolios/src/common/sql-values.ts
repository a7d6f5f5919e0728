/** Raw query results carry numeric/bigint columns as strings and timestamps as strings or Dates: convert explicitly. */
export function num(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' || typeof v === 'bigint') return Number(v);
  throw new TypeError(`expected a numeric column, got ${v === null ? 'null' : typeof v}`);
}

export function numOrNull(v: unknown): number | null {
  return v === null || v === undefined ? null : num(v);
}

export function iso(v: unknown): string {
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'string') return new Date(v).toISOString();
  throw new TypeError(`expected a timestamp column, got ${v === null ? 'null' : typeof v}`);
}

export function strOrNull(v: unknown): string | null {
  return v === null || v === undefined ? null : String(v);
}
