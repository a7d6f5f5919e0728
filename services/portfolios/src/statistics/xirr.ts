import type { XirrError } from '@invest/contracts';

/** One dated flow for XIRR: a double (a rate is a ratio; the money itself is summed exactly before). */
export interface XirrFlow {
  date: string;
  amount: number;
}

export type XirrResult = { rate: number; error: null } | { rate: null; error: XirrError };

const DAY_MS = 86_400_000;

const fail = (code: XirrError['code'], message: string): XirrResult => ({ rate: null, error: { code, message } });

function dayNumber(date: string): number {
  return Math.round(Date.parse(`${date}T00:00:00Z`) / DAY_MS);
}

/**
 * XIRR as spreadsheets define it: the rate r (a fraction, > -1) with
 *   sum_i amount_i / (1 + r)^((date_i - date_0) / 365) = 0,
 * date_0 the earliest date (actual/365). Newton's method from 0.1 (the spreadsheet default guess);
 * when it does not converge, a scan for a sign change over (-0.999999, 1e6) and bisection.
 * No solution is a result, not an exception: `rate` null and an `error` saying why.
 */
export function xirr(flows: readonly XirrFlow[], guess = 0.1): XirrResult {
  const nonZero = flows.filter((f) => f.amount !== 0 && Number.isFinite(f.amount));
  if (nonZero.length === 0) return fail('no_flows', 'There are no cash flows to compute XIRR from.');
  const hasIn = nonZero.some((f) => f.amount > 0);
  const hasOut = nonZero.some((f) => f.amount < 0);
  if (!hasIn || !hasOut) {
    return fail('same_sign', 'All cash flows have the same sign; XIRR needs at least one payment and one receipt.');
  }
  const d0 = Math.min(...nonZero.map((f) => dayNumber(f.date)));
  const points = nonZero.map((f) => ({ t: (dayNumber(f.date) - d0) / 365, a: f.amount }));
  if (points.every((p) => p.t === 0)) {
    return fail('single_date', 'All cash flows fall on one date; a rate of return needs time to pass.');
  }
  const scale = points.reduce((s, p) => s + Math.abs(p.a), 0);

  const npv = (r: number): number => {
    const lr = Math.log1p(r);
    let s = 0;
    for (const p of points) s += p.a * Math.exp(-p.t * lr);
    return s;
  };
  const dnpv = (r: number): number => {
    const lr = Math.log1p(r);
    let s = 0;
    for (const p of points) s += -p.t * p.a * Math.exp(-(p.t + 1) * lr);
    return s;
  };

  // Newton's method.
  let r = guess;
  for (let i = 0; i < 100; i++) {
    const f = npv(r);
    const df = dnpv(r);
    if (!Number.isFinite(f) || !Number.isFinite(df) || df === 0) break;
    let next = r - f / df;
    if (next <= -1) next = (r - 1) / 2; // stay inside the domain: halfway to -1
    if (Math.abs(next - r) <= 1e-12 * Math.max(1, Math.abs(r))) {
      if (Math.abs(npv(next)) <= 1e-7 * scale) return { rate: next, error: null };
      break;
    }
    r = next;
  }

  // Fallback: find a sign change on a grid of (1 + r), then bisect.
  const grid: number[] = [];
  for (let x = Math.log(1e-6); x <= Math.log(1e6 + 1); x += 0.05) grid.push(Math.exp(x) - 1);
  let prevR = grid[0]!;
  let prevF = npv(prevR);
  for (const gr of grid.slice(1)) {
    const gf = npv(gr);
    if (Number.isFinite(prevF) && Number.isFinite(gf) && (prevF === 0 || Math.sign(prevF) !== Math.sign(gf))) {
      if (prevF === 0) return { rate: prevR, error: null };
      let lo = prevR;
      let hi = gr;
      let flo = prevF;
      for (let i = 0; i < 300 && hi - lo > 1e-15 * Math.max(1, Math.abs(lo)); i++) {
        const mid = (lo + hi) / 2;
        const fm = npv(mid);
        if (fm === 0) return { rate: mid, error: null };
        if (Math.sign(fm) === Math.sign(flo)) {
          lo = mid;
          flo = fm;
        } else hi = mid;
      }
      return { rate: (lo + hi) / 2, error: null };
    }
    prevR = gr;
    prevF = gf;
  }
  return fail('no_root', 'No rate between -99.9999 % and 100,000,000 % a year makes the cash flows net to zero.');
}
