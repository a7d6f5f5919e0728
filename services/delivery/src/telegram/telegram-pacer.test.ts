import { describe, expect, it } from 'vitest';
import { TelegramPacer } from './telegram-pacer.js';

/** A pacer on a clock that only moves when it sleeps: each send's time is when its slot came. */
function pacedClock() {
  let now = 1_000_000;
  const pacer = new TelegramPacer({ now: () => now, sleep: async (ms) => void (now += ms) });
  return { pacer, now: () => now, advance: (ms: number) => void (now += ms) };
}

describe('the pace of the bot', () => {
  it('sends one message a second to one chat', async () => {
    const { pacer, now } = pacedClock();
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      await pacer.turn(7);
      times.push(now());
    }
    expect(times[1]! - times[0]!).toBe(1000);
    expect(times[2]! - times[1]!).toBe(1000);
  });

  it('sends to many chats at most 30 a second', async () => {
    const { pacer, now } = pacedClock();
    const start = now();
    const times: number[] = [];
    for (let chat = 1; chat <= 61; chat++) {
      await pacer.turn(chat);
      times.push(now() - start);
    }
    // Any 31 consecutive sends span more than a second.
    for (let i = 0; i + 30 < times.length; i++) expect(times[i + 30]! - times[i]!).toBeGreaterThan(1000);
    expect(times[29]).toBeLessThan(1000);
  });

  it('gives concurrent senders of one chat different slots', async () => {
    let now = 0;
    const slept: number[] = [];
    const pacer = new TelegramPacer({ now: () => now, sleep: async (ms) => void slept.push(ms) });
    await Promise.all([pacer.turn(5), pacer.turn(5), pacer.turn(5)]);
    expect(slept).toEqual([1000, 2000]);
    now = 5000;
    await pacer.turn(5);
    expect(slept).toEqual([1000, 2000]);
  });

  it('holds a chat Telegram throttled until its retry_after is over', () => {
    const { pacer, advance } = pacedClock();
    expect(pacer.heldFor(9)).toBe(0);
    pacer.hold(9, 5000);
    expect(pacer.heldFor(9)).toBe(5000);
    expect(pacer.heldFor(10)).toBe(0);
    advance(4000);
    expect(pacer.heldFor(9)).toBe(1000);
    advance(1000);
    expect(pacer.heldFor(9)).toBe(0);
  });
});
