import { describe, expect, it } from 'vitest';
import { muteUntil } from './telegram-bot.service.js';
import { botCommand } from './telegram-update.js';

describe('bot commands', () => {
  it('reads the command and its argument, with or without the bot name', () => {
    expect(botCommand('/start abc_DEF-123')).toEqual({ name: 'start', arg: 'abc_DEF-123' });
    expect(botCommand('/start@invest_dev_bot abc')).toEqual({ name: 'start', arg: 'abc' });
    expect(botCommand('/MUTE today ')).toEqual({ name: 'mute', arg: 'today' });
    expect(botCommand('/status')).toEqual({ name: 'status', arg: null });
  });

  it('takes plain text and commands with more than one argument as no command', () => {
    expect(botCommand('hello')).toBeNull();
    expect(botCommand('/mute 1 h')).toBeNull();
    expect(botCommand(undefined)).toBeNull();
  });
});

describe('how long /mute lasts', () => {
  const now = new Date('2026-03-10T20:30:00Z');

  it('1h: an hour from now', () => {
    expect(muteUntil('1h', now, 'Europe/Moscow')).toEqual(new Date('2026-03-10T21:30:00Z'));
  });

  it('today: until midnight in the user time zone', () => {
    // 23:30 in Moscow (UTC+3): the day ends in 30 minutes; in New York (UTC-4 in March) it is 16:30.
    expect(muteUntil('today', now, 'Europe/Moscow')).toEqual(new Date('2026-03-10T21:00:00Z'));
    expect(muteUntil('today', now, 'America/New_York')).toEqual(new Date('2026-03-11T04:00:00Z'));
  });

  it('today on a day the clocks change: until that zone midnight all the same', () => {
    // 8 March 2026: New York moves to summer time at 02:00 (a 23-hour day).
    expect(muteUntil('today', new Date('2026-03-08T06:00:00Z'), 'America/New_York')).toEqual(new Date('2026-03-09T04:00:00Z'));
  });

  it('anything else is not understood', () => {
    expect(muteUntil('2h', now, 'Europe/Moscow')).toBeNull();
    expect(muteUntil(null, now, 'Europe/Moscow')).toBeNull();
  });
});
