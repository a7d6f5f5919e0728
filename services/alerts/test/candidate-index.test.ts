/**
 * The in-memory candidate index on real Postgres: an event evaluated through it fires exactly what a full
 * scan fires (the decider on every active row the batch's assets affect; the index is a superset, the rows
 * decide), on random notifications, and it
 * follows what widens the candidates after it was loaded (a create, a switch on, a threshold coming down,
 * a membership added elsewhere) through `index_changes`, and the daily reset by the clock.
 */
import type { RateChange } from '@invest/contracts';
import { type Db, openDatabase } from '@invest/platform/db/database';
import { createLogger } from '@invest/platform/logging/logger';
import { startOfDayInZone } from '@invest/platform/time/zoned-time';
import { createTestDatabase } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertsEvaluator, type EvaluationPlan, type EvaluationScope } from '../src/evaluation/alerts-evaluator.js';
import { migrations } from '../src/migrations/index.js';
import { pendingRates, upsertRates } from '../src/rates/latest-rates.repository.js';
import { fullScan } from './full-scan.js';

let db: Db;
let drop: () => Promise<void>;
const logger = createLogger('test', 'silent');
let now = new Date('2026-03-10T12:00:00Z');
const options = { logger, clock: () => now, maxRateAgeMs: 3_600_000, marketTz: 'Europe/Moscow' };
/** Small load pages: the load crosses many of them. */
const indexed = new AlertsEvaluator({ ...options, indexLoadPage: 7 });

beforeAll(async () => {
  const t = await createTestDatabase('alerts_index');
  drop = t.drop;
  db = await openDatabase({ url: t.url, migrations, logger });
});
afterAll(async () => {
  await db?.close();
  await drop?.();
});

/**
 * Applies a batch of rates and returns the notifications each path would fire (nothing written): the full
 * scan, the index read after the rates were stored, and the event path (`planEvent`: the index's
 * candidates read while the rates are checked against the stored ones, which are written only when `plan`
 * needs them, in a transaction not yet committed, as the consumer does).
 */
async function both(rates: { id: number; rate: number; change: number; asOf?: Date }[]): Promise<{ scan: number[]; indexed: number[]; event: number[]; listed: Record<'scan' | 'indexed' | 'event', string[]> }> {
  const batch: RateChange[] = rates.map((r) => ({ assetType: 'share', assetId: r.id, ticker: `T${r.id}`, currency: 'RUB', rate: r.rate, priceChangePercentage24h: r.change, asOf: (r.asOf ?? now).toISOString() }));
  const ids = (plan: EvaluationPlan) => plan.firings.map((f) => f.n.id).sort((a, b) => a - b);
  // Each firing with the assets it lists (on the event path, a group's members come from the index).
  const listed = (plan: EvaluationPlan) => plan.firings.map((f) => `${f.n.id}: ${f.d.crossed.map((c) => c.assetId).join(' ')}`).sort();
  const eventPlan = await db.transaction((tx) => {
    const rates = pendingRates(tx, batch, now);
    return indexed.planEvent(db, tx, rates.batch, rates.changed, 'test', rates.store);
  });
  const changed = await db.transaction((tx) => upsertRates(tx, batch, now).changed);
  const scope: EvaluationScope = { assets: changed.map((r) => ({ type: r.assetType, id: r.assetId })), rates: changed };
  const scanned = await fullScan(db, changed, { now, maxRateAgeMs: options.maxRateAgeMs, marketTz: options.marketTz });
  const indexedPlan = await db.transaction((tx) => indexed.plan(tx, scope, ['price-target', 'price-change'], 'test'));
  return {
    scan: scanned.map((l) => Number(l.split(':')[0])).sort((a, b) => a - b),
    indexed: ids(indexedPlan),
    event: ids(eventPlan),
    listed: { scan: scanned, indexed: listed(indexedPlan), event: listed(eventPlan) },
  };
}

async function notification(n: { type: 2 | 8; target: 'asset' | 'portfolio'; id: number; op?: '>=' | '<='; value: number; initial?: number; last?: Date | null; active?: boolean }): Promise<number> {
  const [row] = await db.query<{ id: string }>(
    `insert into notifications (user_id, notification_type_id, targetable_type, targetable_id, asset_type, operator, value, initial_value, cooldown_minutes, last_triggered_at, is_active)
     values ('u', $1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning id::text`,
    [n.type, n.target, n.id, n.target === 'asset' ? 'share' : null, n.op ?? '>=', n.value, n.initial ?? n.value, n.type === 8 ? 60 : null, n.last ?? null, n.active ?? true],
  );
  return Number(row!.id);
}

describe('candidate index', () => {
  it('fires exactly what a full scan fires, on random notifications and rates', async () => {
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    const assets = 40;
    await upsertRates(db, Array.from({ length: assets }, (_, i) => ({ assetType: 'share', assetId: i + 1, ticker: `T${i + 1}`, currency: 'RUB', rate: 100, priceChangePercentage24h: 0, asOf: now.toISOString() })), now).changed;
    for (let p = 1; p <= 30; p++) {
      for (let k = 0; k < 3; k++) await db.query("insert into memberships values ('portfolio', $1, 'share', $2, 'u') on conflict do nothing", [p, 1 + Math.floor(random() * assets)]);
    }
    const steps = [1, 2, 3, 5, 10];
    const yesterday = new Date(now.getTime() - 86_400_000);
    const hourAgo = new Date(now.getTime() - 61 * 60_000);
    // Still in its 60-minute cooldown: never a candidate of the index.
    const recently = new Date(now.getTime() - 10 * 60_000);
    for (let i = 0; i < 400; i++) {
      const kind = random();
      const asset = 1 + Math.floor(random() * assets);
      if (kind < 0.4) await notification({ type: 2, target: 'asset', id: asset, op: random() < 0.5 ? '>=' : '<=', value: 90 + random() * 20, active: random() < 0.9 });
      else {
        const step = steps[Math.floor(random() * steps.length)]!;
        const grown = random() < 0.5;
        await notification({
          type: 8,
          target: kind < 0.75 ? 'asset' : 'portfolio',
          id: kind < 0.75 ? asset : 1 + Math.floor(random() * 30),
          value: step,
          initial: grown ? step * (2 + Math.floor(random() * 2)) : step,
          // Not grown and fired recently: switched off and on again within the cooldown.
          last: [yesterday, hourAgo, recently, null][Math.floor(random() * (grown ? 3 : 4))]!,
        });
      }
    }
    // Only the load may feed the index here (the recent index_changes would be applied again on top of it).
    await db.query('delete from index_changes');
    await indexed.loadIndex(db);
    const [{ n } = { n: '0' }] = await db.query<{ n: string }>('select count(*)::text as n from notifications where is_active');
    expect(indexed.index.size).toBe(Number(n));
    const cooling = new Set(
      (await db.query<{ id: string }>("select id::text from notifications where is_active and cooldown_minutes is not null and last_triggered_at + make_interval(mins => cooldown_minutes) > $1", [now])).map((r) => Number(r.id)),
    );
    expect(cooling.size).toBeGreaterThan(0);
    for (let round = 0; round < 6; round++) {
      // Some rounds leave assets out: their groups' other members are the stored rates.
      const some = round % 2 === 1;
      const batch = Array.from({ length: assets }, (_, i) => ({ id: i + 1, rate: 85 + random() * 30, change: (random() - 0.5) * 24 })).filter(() => !some || random() < 0.6);
      const r = await both(batch);
      expect(r.scan.length).toBeGreaterThan(0);
      expect(r.indexed).toEqual(r.scan);
      expect(r.event).toEqual(r.scan);
      expect(r.listed.event).toEqual(r.listed.scan);
      expect(r.listed.indexed).toEqual(r.listed.scan);
      // The index does not offer what is in its cooldown (the rows it names are read back one by one).
      const offered = indexed.index.candidates(batch.map((b) => ({ assetType: 'share', assetId: b.id, ticker: '', rate: b.rate, change24h: b.change, asOf: now, observedAt: now })), startOfDayInZone(now, 'Europe/Moscow'), now);
      expect(offered.length).toBeGreaterThan(0);
      expect(offered.filter((id) => cooling.has(id))).toEqual([]);
      // Between batches thresholds move both ways (firings elsewhere, switches, the reset job): some groups'
      // lowest thresholds change after the index ordered the groups holding each asset by them.
      await db.query('update notifications set initial_value = initial_value + value where notification_type_id = 8 and id % 7 = $1', [round]);
      // Every other round the lists changed are sorted between events, as the consumer has them sorted.
      if (round % 2 === 0) indexed.index.tidy();
      await db.query('update notifications set initial_value = value, cycle = cycle + 1 where notification_type_id = 8 and initial_value > value and id % 5 = $1', [round % 5]);
    }
    // A late batch: one asset's rate older than the stored one is not evaluated (nor stored); the rest is.
    const late = await both([
      { id: 1, rate: 200, change: 23, asOf: new Date(now.getTime() - 60_000) },
      ...Array.from({ length: assets - 1 }, (_, i) => ({ id: i + 2, rate: 85 + random() * 30, change: (random() - 0.5) * 24 })),
    ]);
    expect(late.event).toEqual(late.scan);
    expect(late.indexed).toEqual(late.scan);
    expect(late.listed.event).toEqual(late.listed.scan);
  });

  it('follows what widens the candidates after it was loaded: a create, a switch on, a threshold coming down, a membership, the daily reset', async () => {
    await indexed.loadIndex(db);
    const created = await notification({ type: 2, target: 'asset', id: 101, value: 150 });
    const off = await notification({ type: 2, target: 'asset', id: 102, value: 150, active: false });
    const grown = await notification({ type: 8, target: 'asset', id: 103, value: 5, initial: 15, last: new Date(now.getTime() - 2 * 3_600_000) });
    const group = await notification({ type: 8, target: 'portfolio', id: 900, value: 5 });
    const resetTomorrow = await notification({ type: 8, target: 'asset', id: 104, value: 5, initial: 15, last: now });
    await db.query('update notifications set is_active = true where id = $1', [off]);
    await db.query('update notifications set initial_value = value, cycle = cycle + 1 where id = $1', [grown]);
    await db.query("insert into memberships values ('portfolio', 900, 'share', 105, 'u')");
    const rates = [
      { id: 101, rate: 151, change: 0 },
      { id: 102, rate: 151, change: 0 },
      { id: 103, rate: 100, change: 6 },
      { id: 105, rate: 100, change: -6 },
    ];
    let r = await both(rates);
    for (const id of [created, off, grown, group]) expect(r.indexed).toContain(id);
    expect(r.indexed).toEqual(r.scan);
    expect(r.event).toEqual(r.scan);
    // The next day in MARKET_TZ: the threshold that grew today counts as its step again.
    now = new Date(now.getTime() + 86_400_000);
    r = await both([{ id: 104, rate: 100, change: 6 }]);
    expect(r.indexed).toEqual([resetTomorrow]);
    expect(r.indexed).toEqual(r.scan);
    expect(r.event).toEqual(r.scan);
  });

  it('gives a replaced entry’s slot back once its list dropped it: switching on and off does not grow the store', async () => {
    const own = new AlertsEvaluator({ ...options });
    const ids = [];
    for (let i = 0; i < 20; i++) ids.push(await notification({ type: 2, target: 'asset', id: 300 + (i % 4), value: 500 + i }));
    await own.loadIndex(db);
    const loaded = own.index.slotsUsed;
    const used: number[] = [];
    for (let round = 0; round < 10; round++) {
      // Off and on again: the trigger records the switch on, the refresh replaces each entry (a new slot).
      // The first refresh also applies again the changes of the minute before the load (other tests').
      await db.query('update notifications set is_active = false where id = any($1::bigint[])', [ids]);
      await db.query('update notifications set is_active = true where id = any($1::bigint[])', [ids]);
      await db.transaction((tx) => own.index.refresh(tx));
      own.index.tidy();
      used.push(own.index.slotsUsed);
    }
    expect(used[0]).toBeGreaterThanOrEqual(loaded + ids.length);
    // Replaced 20 at a time nine times more: each time into the slots the last round's tidy gave back.
    expect(used.slice(1)).toEqual(Array(9).fill(used[0]));
    const r = await both([{ id: 300, rate: 600, change: 0 }]);
    expect(r.indexed).toEqual(r.scan);
    await db.query('delete from notifications where id = any($1::bigint[])', [ids]);
  });

  it('reads the groups holding an asset by their lowest threshold, and orders them again when one comes down', async () => {
    const four = await notification({ type: 8, target: 'portfolio', id: 910, value: 4 });
    const nine = await notification({ type: 8, target: 'portfolio', id: 911, value: 2, initial: 9, last: new Date(now.getTime() - 2 * 3_600_000) });
    for (const p of [910, 911]) await db.query("insert into memberships values ('portfolio', $1, 'share', 106, 'u')", [p]);
    let r = await both([{ id: 106, rate: 100, change: 5 }]);
    expect(r.event).toEqual([four]);
    // 911 is now below 910 (2 against 4): a change of 3 reaches it, not 910.
    await db.query('update notifications set initial_value = value, cycle = cycle + 1 where id = $1', [nine]);
    r = await both([{ id: 106, rate: 100, change: 3 }]);
    expect(r.event).toEqual([nine]);
    expect(r.indexed).toEqual(r.scan);
  });

  it('passes over a group whose crossing threshold waits for its cooldown, and reads it once the cooldown ended', async () => {
    const cooling = await notification({ type: 8, target: 'portfolio', id: 912, value: 2, last: new Date(now.getTime() - 10 * 60_000) });
    await db.query("insert into memberships values ('portfolio', 912, 'share', 107, 'u')");
    let r = await both([{ id: 107, rate: 100, change: 3 }]);
    expect(r.event).toEqual([]);
    expect(r.scan).toEqual([]);
    now = new Date(now.getTime() + 51 * 60_000);
    r = await both([{ id: 107, rate: 100, change: 3 }]);
    expect(r.event).toEqual([cooling]);
    expect(r.indexed).toEqual(r.scan);
  });
});
