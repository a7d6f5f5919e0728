import { describe, expect, it } from 'vitest';
import { getClosesReplySchema, packCloses, unpackCloses } from './closes.contract.js';

describe('packCloses and unpackCloses', () => {
  it('packs at the smallest common scale and reads back canonical text', () => {
    const packed = packCloses(['2024-03-01', '2024-03-04', '2024-03-05'], ['250.10', '270.55', '301']);
    expect(packed).toEqual({ start: '2024-03-01', days: [0, 3, 4], scale: 2, units: [25010, 27055, 30100] });
    expect(unpackCloses(packed)).toEqual({ dates: ['2024-03-01', '2024-03-04', '2024-03-05'], closes: ['250.1', '270.55', '301'] });
  });

  it('keeps a unit count beyond a safe integer as its digits, exactly', () => {
    const packed = packCloses(['2024-03-01', '2024-03-02'], ['123456789012.123456789', '0.000000001']);
    expect(packed.units).toEqual(['123456789012123456789', 1]);
    expect(getClosesReplySchema.parse({ data: [{ type: 'share', id: 1, ...packed }], next_after: null, backfilling: [] })).toBeTruthy();
    expect(unpackCloses(packed).closes).toEqual(['123456789012.123456789', '0.000000001']);
  });

  it('rejects a unit count that is neither a safe integer nor digits', () => {
    const row = { type: 'share', id: 1, start: '2024-03-01', days: [0], scale: 0 };
    expect(getClosesReplySchema.safeParse({ data: [{ ...row, units: [2 ** 60] }], next_after: null, backfilling: [] }).success).toBe(false);
    expect(getClosesReplySchema.safeParse({ data: [{ ...row, units: ['1.5'] }], next_after: null, backfilling: [] }).success).toBe(false);
  });
});
