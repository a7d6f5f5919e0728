import { describe, expect, it } from 'vitest';
import { SentFirings } from './sent-firings.js';

describe('SentFirings', () => {
  it('sends live firings newer than the cursor once; an inbox read skips them and moves the cursor past them', () => {
    const s = new SentFirings(10);
    expect([s.live(9), s.live(10)]).toEqual(['sent', 'sent']);
    expect([s.live(12), s.live(12), s.live(15)]).toEqual(['send', 'sent', 'send']);
    // The backstop read finds 11 (its live event lost), 12 and 15 (pushed): only 11 goes out.
    expect([11, 12, 15].filter((id) => s.confirmed(id))).toEqual([11]);
    s.caughtUp();
    expect(s.after).toBe(15);
    expect([s.live(15), s.live(16)]).toEqual(['sent', 'send']);
  });

  it('calls a live firing older than one sent, and not sent itself, late: only the inbox read sends it', () => {
    const s = new SentFirings(0);
    expect(s.live(5)).toBe('send');
    expect(s.live(3)).toBe('late');
    // Still late (never noted as sent) until the inbox read sends it in its order there.
    expect(s.live(3)).toBe('late');
    expect([3, 5].filter((id) => s.confirmed(id))).toEqual([3]);
    expect(s.live(3)).toBe('sent');
  });

  it('never sends a replayed row twice, nor one at or below the cursor', () => {
    const s = new SentFirings(4);
    expect([5, 6].map((id) => s.confirmed(id))).toEqual([true, true]);
    expect([s.confirmed(6), s.confirmed(2), s.live(6), s.live(5)]).toEqual([false, false, 'sent', 'sent']);
  });

  it('forgets pushed ids the inbox read passed without listing (a firing deleted since)', () => {
    const s = new SentFirings(0);
    expect([s.live(2), s.live(3)]).toEqual(['send', 'send']);
    expect(s.confirmed(3)).toBe(false);
    s.caughtUp();
    expect((s as unknown as { pushed: Set<number> }).pushed.size).toBe(0);
  });
});
