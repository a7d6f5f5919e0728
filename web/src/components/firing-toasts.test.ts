import { describe, expect, it } from 'vitest';
import { createMoveToaster, moveToast, notificationCount } from './firing-toasts';
import type { Firing } from './inbox-events';

const OBSERVED = '2026-11-20T10:00:00.000Z';
const firing = (id: number, ticker: string, change: number | null, observedAt = OBSERVED): Firing =>
  ({
    id,
    notification_id: id,
    type: 'price-change',
    title: `${ticker} #${id}`,
    body: `body ${id}`,
    path: '/notifications',
    assets: [{ type: 'share', id: 1, ticker, name: null, rate: 100, price_change_percentage_24h: change, as_of: OBSERVED }],
    explanation: { observed_at: observedAt },
    read_at: null,
    fired_at: OBSERVED,
  }) as unknown as Firing;

/** A toaster on a test clock, with the toasts it shows as a list (an update changes one in place). */
function toaster(opts: { closed?: () => boolean } = {}) {
  const clock = { now: 0 };
  const shown: { title: string; text: string; items?: string[] }[] = [];
  const add = createMoveToaster({
    show: (t) => shown.push(t) - 1,
    update: (id, t) => {
      if (opts.closed?.()) return false;
      shown[id] = t;
      return true;
    },
    locale: () => 'ru',
    now: () => clock.now,
  });
  return { clock, shown, add };
}

describe('one toast per move', () => {
  it('says ru and en counts with their plurals', () => {
    expect([1, 2, 3, 5, 11, 21, 22].map((n) => notificationCount(n, 'ru'))).toEqual([
      '1 уведомление',
      '2 уведомления',
      '3 уведомления',
      '5 уведомлений',
      '11 уведомлений',
      '21 уведомление',
      '22 уведомления',
    ]);
    expect([1, 3].map((n) => notificationCount(n, 'en'))).toEqual(['1 notification', '3 notifications']);
  });

  it('shows one firing as it is, several under the asset that moved furthest', () => {
    expect(moveToast([firing(1, 'SBER', 1)], 'ru')).toEqual({ title: 'SBER #1', text: 'body 1' });
    expect(moveToast([firing(1, 'SBER', 1), firing(2, 'LKOH', 5.2), firing(3, 'GAZP', -3)], 'ru')).toEqual({
      title: 'LKOH +5,2 %: 3 уведомления',
      text: '',
      items: ['body 1', 'body 2', 'body 3'],
    });
    expect(moveToast([firing(1, 'SBER', -7.25), firing(2, 'LKOH', 5.2)], 'en').title).toBe('SBER -7.3%: 2 notifications');
    expect(moveToast([firing(1, 'SBER', null), firing(2, 'LKOH', null)], 'en').title).toBe('SBER: 2 notifications');
  });

  it('gathers firings within 3 s into the first toast, then starts a new one', () => {
    const t = toaster();
    t.add(firing(1, 'LKOH', 5.2, 'a'));
    t.clock.now = 1500;
    t.add(firing(2, 'SBER', 1, 'b'));
    t.clock.now = 3000;
    t.add(firing(3, 'GAZP', 2, 'c'));
    expect(t.shown).toEqual([{ title: 'LKOH +5,2 %: 3 уведомления', text: '', items: ['body 1', 'body 2', 'body 3'] }]);
    t.clock.now = 3001;
    t.add(firing(4, 'GAZP', 2, 'd'));
    expect(t.shown.map((s) => s.title)).toEqual(['LKOH +5,2 %: 3 уведомления', 'GAZP #4']);
  });

  it('keeps one rate batch in one toast however late its firings arrive; a firing seen already changes nothing', () => {
    const t = toaster();
    t.add(firing(1, 'LKOH', 5.2));
    t.clock.now = 10_000;
    t.add(firing(2, 'SBER', 1));
    t.add(firing(1, 'LKOH', 5.2));
    expect(t.shown).toEqual([{ title: 'LKOH +5,2 %: 2 уведомления', text: '', items: ['body 1', 'body 2'] }]);
  });

  it('starts a new toast when the person closed the move\'s one', () => {
    let closed = false;
    const t = toaster({ closed: () => closed });
    t.add(firing(1, 'LKOH', 5.2));
    closed = true;
    t.add(firing(2, 'SBER', 1));
    expect(t.shown.map((s) => s.title)).toEqual(['LKOH #1', 'SBER #2']);
  });
});

describe('a stream event read loosely', () => {
  it('shows a firing without explanation or assets (JSON from the network) and groups it by time', () => {
    const t = toaster();
    const bare = (id: number) => ({ id, notification_id: id, title: `T${id}`, body: `B${id}`, path: '/', fired_at: OBSERVED, read_at: null }) as unknown as Firing;
    t.add(bare(1));
    t.add(bare(2));
    expect(t.shown).toEqual([{ title: '2 уведомления', text: '', items: ['B1', 'B2'] }]);
  });
});
