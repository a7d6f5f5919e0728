import { describe, expect, it } from 'vitest';
import { xirr } from './xirr.js';

/** Net present value at rate r, actual/365 from the first date (the spreadsheet XIRR definition), written out independently. */
function npv(flows: { date: string; amount: number }[], r: number): number {
  const t0 = Date.parse(flows[0]!.date);
  return flows.reduce((s, f) => s + f.amount / (1 + r) ** ((Date.parse(f.date) - t0) / 86_400_000 / 365), 0);
}

describe('xirr', () => {
  it('agrees with spreadsheet XIRR on the classic example (0.373362535)', () => {
    const flows = [
      { date: '2008-01-01', amount: -10000 },
      { date: '2008-03-01', amount: 2750 },
      { date: '2008-10-30', amount: 4250 },
      { date: '2009-02-15', amount: 3250 },
      { date: '2009-04-01', amount: 2750 },
    ];
    const result = xirr(flows);
    expect(result.error).toBeNull();
    expect(Math.abs(result.rate! - 0.373362535)).toBeLessThan(1e-6);
  });

  it('gives exactly 10 % for -1000 and +1100 one (365-day) year apart', () => {
    const result = xirr([
      { date: '2023-01-01', amount: -1000 },
      { date: '2024-01-01', amount: 1100 },
    ]);
    expect(result.rate).toBeCloseTo(0.1, 9);
  });

  it('uses actual/365 over a leap year: 1100/1000 over 366 days is 1.1^(365/366) - 1', () => {
    const result = xirr([
      { date: '2024-01-01', amount: -1000 },
      { date: '2025-01-01', amount: 1100 },
    ]);
    expect(result.rate).toBeCloseTo(1.1 ** (365 / 366) - 1, 9);
  });

  it('does not depend on the order of the flows', () => {
    const result = xirr([
      { date: '2009-04-01', amount: 2750 },
      { date: '2008-10-30', amount: 4250 },
      { date: '2008-01-01', amount: -10000 },
      { date: '2009-02-15', amount: 3250 },
      { date: '2008-03-01', amount: 2750 },
    ]);
    expect(Math.abs(result.rate! - 0.373362535)).toBeLessThan(1e-6);
  });

  it('finds a near-total loss where Newton from 0.1 cannot go (falls back to bracketing)', () => {
    const result = xirr([
      { date: '2020-01-01', amount: -1000 },
      { date: '2021-01-01', amount: 1 },
    ]);
    // (1 + r)^(366/365) = 0.001
    expect(result.rate).toBeCloseTo(0.001 ** (365 / 366) - 1, 9);
  });

  it('finds a negative return for a loss with intermediate flows and the root nets the flows to zero', () => {
    const flows = [
      { date: '2021-03-01', amount: -5000 },
      { date: '2021-09-15', amount: -2000 },
      { date: '2022-01-10', amount: 300 },
      { date: '2023-06-30', amount: 4000 },
    ];
    const result = xirr(flows);
    expect(result.rate).toBeLessThan(0);
    expect(Math.abs(npv(flows, result.rate!))).toBeLessThan(1e-6);
  });

  it('answers null with same_sign when every flow is an outflow (or every one an inflow)', () => {
    const out = xirr([
      { date: '2024-01-01', amount: -100 },
      { date: '2024-06-01', amount: -50 },
    ]);
    expect(out).toEqual({ rate: null, error: expect.objectContaining({ code: 'same_sign' }) });
    expect(out.error?.message).toMatch(/same sign/);
    expect(xirr([{ date: '2024-01-01', amount: 10 }, { date: '2024-02-01', amount: 5 }]).error?.code).toBe('same_sign');
  });

  it('answers null with no_flows when there is nothing (or only zeros)', () => {
    expect(xirr([]).error?.code).toBe('no_flows');
    expect(xirr([{ date: '2024-01-01', amount: 0 }]).error?.code).toBe('no_flows');
  });

  it('answers null with single_date when all flows fall on one day', () => {
    const result = xirr([
      { date: '2024-01-01', amount: -100 },
      { date: '2024-01-01', amount: 120 },
    ]);
    expect(result.rate).toBeNull();
    expect(result.error?.code).toBe('single_date');
  });

  it('answers null with no_root when no rate in range solves (a millionfold gain in one day)', () => {
    const result = xirr([
      { date: '2024-01-01', amount: -1 },
      { date: '2024-01-02', amount: 1_000_000 },
    ]);
    expect(result.rate).toBeNull();
    expect(result.error?.code).toBe('no_root');
  });
});
