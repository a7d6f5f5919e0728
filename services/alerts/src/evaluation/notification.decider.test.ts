import { Decimal } from '@invest/platform/decimal/decimal';
import { deciderSpecification } from '@invest/platform/testing/index';
import { describe, expect, it } from 'vitest';
import type { FiringDecision, NotificationState, RateView } from './evaluation.types.js';
import { currentThreshold, type NotificationCommand, notificationDecider, type NotificationEvent, operatorFor } from './notification.decider.js';

const spec = deciderSpecification(notificationDecider);
// 10:00 UTC = 13:00 in Moscow; the Moscow day started at 2026-11-19T21:00Z.
const now = new Date('2026-11-20T10:00:00Z');
const minutes = (m: number) => new Date(now.getTime() + m * 60_000);
const context = (at = now) => ({ now: at, maxRateAgeMs: 60 * 60_000, marketTz: 'Europe/Moscow' });
const evaluate = (rates: RateView[], at = now): NotificationCommand => ({ type: 'EvaluateRates', rates, ...context(at) });
/** A price as stored (`numeric` text). */
const d = (text: string | number) => Decimal.of(text);

const notification = (over: Partial<NotificationState>): NotificationState => ({
  id: 1,
  userId: 'u',
  kind: 'price-target',
  targetType: 'asset',
  targetId: 7,
  assetType: 'share',
  isActive: true,
  operator: '>=',
  value: d(100),
  initialValue: d(100),
  cooldownMinutes: null,
  lastTriggeredAt: null,
  cycle: 0,
  operatorRateAsOf: null,
  ...over,
});
const created = (over: Partial<NotificationState> = {}): NotificationEvent => ({ type: 'NotificationCreated', data: notification(over) });
const createdChange = (over: Partial<NotificationState> = {}) => created({ id: 5, kind: 'price-change', value: d(5), initialValue: d(5), cooldownMinutes: 60, ...over });
const rate = (over: Partial<RateView> = {}): RateView => ({
  assetType: 'share',
  assetId: 7,
  ticker: 'SBER',
  rate: 100,
  change24h: 1,
  asOf: new Date(now.getTime() - 60_000),
  observedAt: new Date(now.getTime() - 30_000),
  ...over,
});
const fired = (f: Partial<FiringDecision> & Pick<FiringDecision, 'crossed'>): NotificationEvent => ({
  type: 'NotificationFired',
  data: { notificationId: 1, stepKey: 'c0', headline: f.crossed[0]!, threshold: d(100), nextThreshold: null, cooldownEndsAt: null, cycle: 0, firedAt: now, ...f },
});

describe('operatorFor', () => {
  /** Given the current rate, when a target is asked for in a direction (or none), then this operator (null: refused). */
  const given = (rate: string | number) => ({
    when: (target: string | number, direction?: 'above' | 'below' | null) => ({
      then: (operator: '>=' | '<=' | null) => expect(operatorFor(d(target), d(rate), direction), `rate ${rate}, target ${target} ${direction ?? '(no direction)'}`).toBe(operator),
    }),
  });

  it('without a direction: >= for a target above the rate, <= below, none when equal', () => {
    given(100).when(110).then('>=');
    given(100).when(90).then('<=');
    given(100).when('100.00').then(null);
    given(1e12).when('1000000000000.00000001').then('>=');
    given(100).when(110, null).then('>=');
  });

  it('above waits for a rise (>=) to a target over the rate', () => {
    given(100).when(110, 'above').then('>=');
    given(1e12).when('1000000000000.00000001', 'above').then('>=');
  });

  it('below waits for a fall (<=) to a target under the rate', () => {
    given(100).when(90, 'below').then('<=');
    given('999999999.99999999').when('999999999.99999998', 'below').then('<=');
  });

  it('refuses a target the rate has already reached in the chosen direction, or equals', () => {
    given(100).when(90, 'above').then(null);
    given(100).when('100.00', 'above').then(null);
    given(100).when(110, 'below').then(null);
    given(100).when(100, 'below').then(null);
    // Exactly: one unit of the 8th decimal place over the rate is not "reached" for above, is for below.
    given(1e12).when('1000000000000.00000001', 'below').then(null);
    given('100.00000001').when(100, 'above').then(null);
  });
});

describe('price-target', () => {
  it('fires when the rate reaches the target from below (>=), keyed by its cycle', () => {
    spec.given(created()).when(evaluate([rate({ rate: 99.99 })])).thenNothingHappened();
    spec.given(created()).when(evaluate([rate({ rate: 100 })])).then(fired({ crossed: [rate({ rate: 100 })] }));
    spec.given(created({ cycle: 3 })).when(evaluate([rate({ rate: 120 })])).then(fired({ crossed: [rate({ rate: 120 })], stepKey: 'c3', cycle: 3 }));
  });

  it('fires only downwards with <=', () => {
    const below = created({ operator: '<=', value: d(90), initialValue: d(90) });
    spec.given(below).when(evaluate([rate({ rate: 95 })])).thenNothingHappened();
    spec.given(below).when(evaluate([rate({ rate: 80 })])).then(fired({ crossed: [rate({ rate: 80 })], threshold: d(90) }));
  });

  it('decides exactly: a target with more significant digits than a double keeps is not the double next to it', () => {
    // As doubles, 1000000000000.00000001 is 1e12 and 999999999.99999999 is 1e9: a rate there has not reached them.
    const target = d('1000000000000.00000001');
    const above = created({ value: target, initialValue: target });
    spec.given(above).when(evaluate([rate({ rate: 1e12 })])).thenNothingHappened();
    spec.given(above).when(evaluate([rate({ rate: 1000000000000.001 })])).then(fired({ crossed: [rate({ rate: 1000000000000.001 })], threshold: target }));
    const below = created({ operator: '<=', value: d('999999999.99999999'), initialValue: d('999999999.99999999') });
    spec.given(below).when(evaluate([rate({ rate: 1e9 })])).thenNothingHappened();
  });

  it('fires once: after its firing it is inactive and the next rate fires nothing', () => {
    spec.given([created(), fired({ crossed: [rate()] })]).when(evaluate([rate({ rate: 130 })])).thenNothingHappened();
    const after = notificationDecider.evolve(notificationDecider.evolve(null, created()), fired({ crossed: [rate()] }));
    expect(after).toMatchObject({ isActive: false, lastTriggeredAt: now, initialValue: d(100), cycle: 0 });
  });

  it('never fires on a stale rate, a missing rate, a switched-off or unknown notification', () => {
    spec.given(created()).when(evaluate([rate({ rate: 150, asOf: minutes(-61) })])).thenNothingHappened();
    spec.given(created()).when(evaluate([rate({ rate: null })])).thenNothingHappened();
    spec.given(created()).when(evaluate([])).thenNothingHappened();
    spec.given(created({ isActive: false })).when(evaluate([rate({ rate: 150 })])).thenNothingHappened();
    spec.given().when(evaluate([rate({ rate: 150 })])).thenNothingHappened();
  });

  it('never fires on a rate older than the one its operator was decided from; a row without one fires on any fresh rate', () => {
    const decidedAt = minutes(-2);
    const n = created({ operator: '<=', value: d(105), initialValue: d(105), operatorRateAsOf: decidedAt });
    spec.given(n).when(evaluate([rate({ asOf: new Date(decidedAt.getTime() - 1) })])).thenNothingHappened();
    spec.given(n).when(evaluate([rate({ asOf: decidedAt })])).then(fired({ crossed: [rate({ asOf: decidedAt })], threshold: d(105) }));
    spec.given(created()).when(evaluate([rate({ asOf: minutes(-60) })])).then(fired({ crossed: [rate({ asOf: minutes(-60) })] }));
  });
});

describe('price-change', () => {
  const change = (c: number | null, over: Partial<RateView> = {}) => rate({ change24h: c, ...over });
  const firedChange = (f: Partial<FiringDecision> & Pick<FiringDecision, 'crossed'>) =>
    fired({ notificationId: 5, stepKey: 'c0:t5', threshold: d(5), nextThreshold: d(10), cooldownEndsAt: minutes(60), ...f });

  it('fires when |change| reaches the threshold, in either direction, and grows it by the step', () => {
    spec.given(createdChange()).when(evaluate([change(4.99)])).thenNothingHappened();
    spec.given(createdChange()).when(evaluate([change(5)])).then(firedChange({ crossed: [change(5)] }));
    spec.given(createdChange()).when(evaluate([change(-6)])).then(firedChange({ crossed: [change(-6)] }));
  });

  it('grows 5 → 10 → 15 across firings separated by the cooldown, and stays active', () => {
    let state = notificationDecider.evolve(null, createdChange());
    const thresholds: string[] = [];
    for (const [at, c] of [[0, 6], [61, 11], [122, 16]] as const) {
      const [event] = notificationDecider.decide(evaluate([change(c, { asOf: minutes(at) })], minutes(at)), state) as NotificationEvent[];
      expect(event?.type).toBe('NotificationFired');
      if (event?.type === 'NotificationFired') thresholds.push(event.data.threshold.toString());
      state = notificationDecider.evolve(state, event!);
    }
    expect(thresholds).toEqual(['5', '10', '15']);
    expect(state).toMatchObject({ isActive: true, initialValue: d(20), lastTriggeredAt: minutes(122) });
  });

  it('waits for the cooldown: nothing fires before it ends, even past the next threshold', () => {
    const cooling = createdChange({ initialValue: d(10), lastTriggeredAt: now, cooldownMinutes: 60 });
    spec.given(cooling).when(evaluate([change(12, { asOf: minutes(59) })], minutes(59))).thenNothingHappened();
    spec
      .given(cooling)
      .when(evaluate([change(12, { asOf: minutes(60) })], minutes(60)))
      .then(firedChange({ crossed: [change(12, { asOf: minutes(60) })], stepKey: 'c0:t10', threshold: d(10), nextThreshold: d(15), cooldownEndsAt: minutes(120), firedAt: minutes(60) }));
  });

  it('resets the threshold to the step at the start of the MARKET_TZ day, in a new cycle', () => {
    // Last fired 20:30 UTC on the 19th = 23:30 Moscow: yesterday there.
    const yesterday = { initialValue: d(15), lastTriggeredAt: new Date('2026-11-19T20:30:00Z'), cycle: 2 };
    expect(currentThreshold({ value: d(5), ...yesterday }, context())).toEqual({ initialValue: d(5), cycle: 3 });
    spec.given(createdChange(yesterday)).when(evaluate([change(6)])).then(firedChange({ crossed: [change(6)], stepKey: 'c3:t5', cycle: 3 }));
    // Fired 21:30 UTC = 00:30 Moscow on the 20th: today there, no reset.
    const today = createdChange({ initialValue: d(15), lastTriggeredAt: new Date('2026-11-19T21:30:00Z'), cycle: 2 });
    spec.given(today).when(evaluate([change(6)])).thenNothingHappened();
  });

  it('never fires on stale rates; a group lists every fresh asset that crossed, furthest first', () => {
    const stale = change(20, { asOf: minutes(-120) });
    spec.given(createdChange()).when(evaluate([stale])).thenNothingHappened();
    const members = [change(5.5, { assetId: 1 }), change(-8, { assetId: 2 }), change(2, { assetId: 3 }), { ...stale, assetId: 4 }];
    spec
      .given(createdChange({ targetType: 'portfolio', assetType: null, targetId: 3 }))
      .when(evaluate(members))
      .then(firedChange({ crossed: [members[1]!, members[0]!] }));
  });

  it('ignores a switched-off notification and a null change', () => {
    spec.given(createdChange({ isActive: false })).when(evaluate([change(50)])).thenNothingHappened();
    spec.given(createdChange()).when(evaluate([change(null)])).thenNothingHappened();
  });
});
