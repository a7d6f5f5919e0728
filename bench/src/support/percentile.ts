/** The `p`th percentile of `xs` (the value at index ⌊p/100 · n⌋ of the sorted values); NaN when empty. */
export function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}
