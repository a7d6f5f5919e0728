/**
 * A chunk's firings reach Postgres as one text of records and fields split at control characters: each firing's
 * expected and next state, its step, user, path and documents (texts, assets, explanation). On real Postgres:
 * every stored firing carries its own notification's state, user and documents, and names and user ids holding
 * the separators, quotes, backslashes and non-Latin text are stored and read back as they were. Firings alike (one asset, step and cooldown) share
 * documents made once, across a plan's chunks, and still each keep what is theirs.
 */
import type { RateChange } from '@invest/contracts';
import type { Db } from '@invest/platform/db/database';
import { createLogger } from '@invest/platform/logging/logger';
import { useTestDatabase } from '@invest/platform/testing/index';
import { describe, expect, it } from 'vitest';
import { AlertsEvaluator } from '../src/evaluation/alerts-evaluator.js';
import { recordInChunks } from '../src/evaluation/chunked-recording.js';
import { pendingRates } from '../src/rates/latest-rates.repository.js';
import { migrations } from '../src/migrations/index.js';

let db: Db;
useTestDatabase('alerts_docs', migrations, (opened) => (db = opened));
const logger = createLogger('test', 'silent');
const now = new Date();
const evaluator = new AlertsEvaluator({ logger, clock: () => now, maxRateAgeMs: 3_600_000, marketTz: 'Europe/Moscow' });
const awkward = 'Mix \x1e\x1f "quoted" \\ back\\slash, Ёлка 📈';

async function rate(assetId: number, price: number, change: number, name: string | null = null): Promise<void> {
  await db.query(
    `insert into latest_rates (asset_type, asset_id, ticker, currency, rate, change_24h, as_of, observed_at) values ('share', $1, $2, 'RUB', $3, $4, $5, $5)`,
    [assetId, `T${assetId}`, price, change, now],
  );
  await db.query(`insert into assets (asset_type, asset_id, ticker, name) values ('share', $1, $2, $3)`, [assetId, `T${assetId}`, name]);
}

describe('firing documents', () => {
  it('stores each firing with its own notification’s documents, separators and quotes in names included', async () => {
    // 120 asset targets over 120 assets, each with its own price and change, so a document put on another
    // firing's row shows; and a portfolio whose name holds both separators.
    const expected = new Map<number, { assetId: number; price: number; userId: string }>();
    for (let a = 1; a <= 120; a++) {
      const price = 100 + a;
      await rate(a, price, 0.5, a === 7 ? awkward : null);
      const [n] = await db.query<{ id: string }>(
        `insert into notifications (user_id, notification_type_id, targetable_type, targetable_id, asset_type, operator, value, initial_value)
         values ($1, 2, 'asset', $2, 'share', '>=', $3, $3) returning id::text`,
        [a === 7 ? awkward : `user-${a % 9}`, a, price - 1],
      );
      expected.set(Number(n!.id), { assetId: a, price, userId: a === 7 ? awkward : `user-${a % 9}` });
    }
    await rate(500, 50, -6.25);
    await db.query(`insert into memberships (target_type, target_id, asset_type, asset_id, user_id) values ('portfolio', 77, 'share', 500, 'owner')`);
    const [group] = await db.query<{ id: string }>(
      `insert into notifications (user_id, notification_type_id, targetable_type, targetable_id, target_name, operator, value, initial_value, cooldown_minutes)
       values ('owner', 8, 'portfolio', 77, $1, '>=', 5, 5, 60) returning id::text`,
      [awkward],
    );

    const result = await db.transaction((tx) => evaluator.evaluate(tx, { all: true }, ['price-target', 'price-change'], 'test'));
    expect(result.fired).toBe(121);

    const rows = await db.query<{ notification_id: string; user_id: string; path: string; texts: Record<string, { title: string; body: string }>; assets: { id: number; rate: number; name: string | null }[]; explanation: { rate: number; threshold: number } }>(
      'select notification_id::text, user_id, path, texts, assets, explanation from notification_firings',
    );
    expect(rows).toHaveLength(121);
    for (const r of rows) {
      const id = Number(r.notification_id);
      const want = expected.get(id);
      if (!want) continue;
      expect(r.user_id).toBe(want.userId);
      expect(r.path).toMatch(new RegExp(`/${want.assetId}$`));
      expect(r.assets.map((a) => a.id)).toEqual([want.assetId]);
      expect(r.assets[0]!.rate).toBe(want.price);
      expect(r.explanation).toMatchObject({ rate: want.price, threshold: want.price - 1 });
      expect(r.texts.en!.title).toContain(`T${want.assetId}`);
    }
    const named = rows.find((r) => Number(r.notification_id) === [...expected].find(([, v]) => v.assetId === 7)![0])!;
    expect(named.assets[0]!.name).toBe(awkward);
    const portfolio = rows.find((r) => r.notification_id === group!.id)!;
    expect(portfolio.texts.ru!.title).toContain(`«${awkward}»`);
    expect(portfolio.texts.en!.title).toContain(`«${awkward}»`);
    expect(portfolio.assets.map((a) => a.id)).toEqual([500]);
    expect(portfolio.explanation).toMatchObject({ rate: 50, threshold: 5 });
    // What the evaluator hands the publisher carries the same documents as the rows.
    const published = result.committed.flatMap((c) => c.firings).find((f) => f.notificationId === Number(group!.id))!;
    expect(published.texts).toEqual(portfolio.texts);
  });
});

describe('firings alike', () => {
  it('share their documents, in every chunk, while each keeps its own step, cooldown and target', async () => {
    // On one asset whose change is 12.5 %: 60 price-change notifications with a 5 % step at 5 % (half hourly,
    // half daily) and 20 with a 10 % step at 10 %; and one on a second asset: four distinct documents.
    await rate(900, 80, 12.5, 'Shared');
    await rate(901, 70, -5.5);
    const want = new Map<number, { step: number; threshold: number; cooldown: number; assetId: number }>();
    const add = async (assetId: number, step: number, threshold: number, cooldown: number, user: string) => {
      const [n] = await db.query<{ id: string }>(
        `insert into notifications (user_id, notification_type_id, targetable_type, targetable_id, asset_type, operator, value, initial_value, cooldown_minutes)
         values ($1, 8, 'asset', $2, 'share', '>=', $3, $4, $5) returning id::text`,
        [user, assetId, step, threshold, cooldown],
      );
      want.set(Number(n!.id), { step, threshold, cooldown, assetId });
    };
    for (let i = 0; i < 60; i++) await add(900, 5, 5, i % 2 ? 60 : 1440, `alike-${i}`);
    for (let i = 0; i < 20; i++) await add(900, 10, 10, 60, `alike-ten-${i}`);
    await add(901, 5, 5, 60, 'alike-other');

    const plan = await evaluator.plan(db, { assets: [{ type: 'share', id: 900 }, { type: 'share', id: 901 }] }, ['price-change'], 'test');
    expect(plan.firings).toHaveLength(81);
    const committed: Parameters<Parameters<typeof recordInChunks>[3]['onCommitted']>[0][] = [];
    // Chunks of 7: the same documents are named by many chunks.
    const fired = await recordInChunks(db, evaluator, plan, { size: 7, writers: 2, onCommitted: (c) => committed.push(c) });
    expect(fired).toBe(81);
    expect(committed.length).toBeGreaterThan(10);

    const rows = await db.query<{ notification_id: string; step_key: string; texts: Record<string, { title: string; body: string }>; assets: { id: number; name: string | null }[]; explanation: { threshold: number; cooldown_ends_at: string; next_threshold: number } }>(
      `select notification_id::text, step_key, texts, assets, explanation from notification_firings where user_id like 'alike%'`,
    );
    expect(rows).toHaveLength(81);
    const distinct = new Set<string>();
    for (const r of rows) {
      const w = want.get(Number(r.notification_id))!;
      expect(r.step_key).toBe(`c0:t${w.threshold}`);
      expect(r.assets.map((a) => a.id)).toEqual([w.assetId]);
      expect(r.explanation.threshold).toBe(w.threshold);
      expect(r.explanation.next_threshold).toBe(w.threshold + w.step);
      expect(new Date(r.explanation.cooldown_ends_at).getTime()).toBe(now.getTime() + w.cooldown * 60_000);
      expect(r.texts.en!.body).toContain(`${w.threshold}% threshold`);
      distinct.add(JSON.stringify([r.texts, r.assets, r.explanation]));
    }
    expect(distinct.size).toBe(4);
    // Made once each: the firings alike hand the publisher one rendering.
    expect(new Set(committed.flatMap((c) => c.firings.map((f) => f.texts))).size).toBe(4);
    // What is published carries the same documents as each row.
    const byId = new Map(rows.map((r) => [Number(r.notification_id), r]));
    for (const f of committed.flatMap((c) => c.firings)) {
      expect(f.explanation).toEqual(byId.get(f.notificationId)!.explanation);
      expect(f.texts).toEqual(byId.get(f.notificationId)!.texts);
    }
  });

  it('never share across targets, target names or target prices', async () => {
    // One crossed member each: a group's firing of one asset is keyed like an asset's. Portfolio 205 has two
    // notifications made under different names (renamed between): null and the text "null"; 207 is both a
    // portfolio and a watchlist.
    await rate(910, 90, 6);
    await rate(911, 90, 0.1);
    const groups: [string, number, string | null][] = [
      ['portfolio', 205, null],
      ['portfolio', 205, 'null'],
      ['portfolio', 206, ''],
      ['watchlist', 206, 'X'],
      ['portfolio', 207, null],
      ['watchlist', 207, null],
    ];
    const group = new Map<number, [string, number, string | null]>();
    for (const [type, id, name] of groups) {
      for (const asset of [910, 911]) {
        await db.query(`insert into memberships (target_type, target_id, asset_type, asset_id, user_id) values ($1, $2, 'share', $3, 'owner') on conflict do nothing`, [type, id, asset]);
      }
      const [n] = await db.query<{ id: string }>(
        `insert into notifications (user_id, notification_type_id, targetable_type, targetable_id, target_name, operator, value, initial_value, cooldown_minutes)
         values ('names', 8, $1, $2, $3, '>=', 5, 5, 60) returning id::text`,
        [type, id, name],
      );
      group.set(Number(n!.id), [type, id, name]);
    }
    // Price targets on one asset: two at 140, one at 145 (the rate, 150, is above both).
    await rate(920, 150, 0);
    const target = new Map<number, number>();
    for (const price of [140, 140, 145]) {
      const [n] = await db.query<{ id: string }>(
        `insert into notifications (user_id, notification_type_id, targetable_type, targetable_id, asset_type, operator, value, initial_value)
         values ('targets', 2, 'asset', 920, 'share', '>=', $1, $1) returning id::text`,
        [price],
      );
      target.set(Number(n!.id), price);
    }

    // The event path, as the consumer runs it: there every group's members are the batch's own rate objects,
    // so only the key tells a portfolio from a watchlist with the same id and name.
    const indexed = new AlertsEvaluator({ logger, clock: () => now, maxRateAgeMs: 3_600_000, marketTz: 'Europe/Moscow' });
    await indexed.loadIndex(db);
    const batch: RateChange[] = [
      [910, 90, 6],
      [911, 90, 0.1],
      [920, 150, 0],
    ].map(([id, price, change]) => ({ assetType: 'share', assetId: id!, ticker: `T${id}`, currency: 'RUB', rate: price!, priceChangePercentage24h: change!, asOf: now.toISOString() }));
    const plan = await db.transaction((tx) => {
      const rates = pendingRates(tx, batch, now);
      return indexed.planEvent(db, tx, rates.batch, rates.changed, 'test', rates.store);
    });
    expect(indexed.index.loaded).toBe(true);
    const committed: Parameters<Parameters<typeof recordInChunks>[3]['onCommitted']>[0][] = [];
    expect(await recordInChunks(db, indexed, plan, { size: 2, writers: 2, onCommitted: (c) => committed.push(c) })).toBe(9);
    const firings = committed.flatMap((c) => c.firings);

    for (const f of firings.filter((x) => group.has(x.notificationId))) {
      const [type, id, name] = group.get(f.notificationId)!;
      const label = `${type === 'portfolio' ? 'Portfolio' : 'Watchlist'} ${name ? `«${name}»` : `#${id}`}`;
      expect(f.texts.en!.title).toBe(`${label}: 24h change +6%`);
      expect(f.path).toBe(`/${type}s/${id}`);
    }
    for (const f of firings.filter((x) => target.has(x.notificationId))) {
      expect(f.explanation.threshold).toBe(target.get(f.notificationId));
    }
    // Shared only by the two targets at 140.
    expect(new Set(firings.map((f) => JSON.stringify([f.texts, f.assets, f.explanation]))).size).toBe(8);
  });
});

describe('each firing’s state change', () => {
  it('applies to its own notification only while the row is as read, and leaves it as decided', async () => {
    // On one asset whose change is 6.5 %: price-change rows after a daily reset (their cycle and threshold
    // change, their last trigger was yesterday), a first trigger (no last trigger yet), a price target; and two
    // rows changed between the plan and the write (another last trigger, another cycle), which must not fire.
    await rate(950, 50, 6.5);
    const yesterday = new Date(now.getTime() - 36 * 3_600_000);
    const insert = async (user: string, type: number, value: number, initial: number, last: Date | null, cycle: number, operator = '>=') => {
      const [n] = await db.query<{ id: string }>(
        `insert into notifications (user_id, notification_type_id, targetable_type, targetable_id, asset_type, operator, value, initial_value, cooldown_minutes, last_triggered_at, cycle)
         values ($1, $2, 'asset', 950, 'share', $3, $4, $5, $6, $7, $8) returning id::text`,
        [user, type, operator, value, initial, type === 8 ? 60 : null, last, cycle],
      );
      return Number(n!.id);
    };
    const reset = await insert('state-reset', 8, 5, 10, yesterday, 4);
    const first = await insert('state-first', 8, 3, 3, null, 0);
    const target = await insert('state-target', 2, 49, 49, null, 0);
    const movedLast = await insert('state-moved-last', 8, 5, 10, yesterday, 4);
    const movedCycle = await insert('state-moved-cycle', 8, 5, 10, yesterday, 4);

    const plan = await evaluator.plan(db, { assets: [{ type: 'share', id: 950 }] }, ['price-target', 'price-change'], 'test');
    expect(plan.firings.map((f) => f.n.id).sort((a, b) => a - b)).toEqual([reset, first, target, movedLast, movedCycle]);
    await db.query('update notifications set last_triggered_at = $2 where id = $1', [movedLast, new Date(yesterday.getTime() - 60_000)]);
    await db.query('update notifications set cycle = 5 where id = $1', [movedCycle]);
    const fired = await recordInChunks(db, evaluator, plan, { size: 500, writers: 1, onCommitted: () => undefined });
    expect(fired).toBe(3);

    const rows = new Map(
      (await db.query<{ id: string; is_active: boolean; initial_value: string; cycle: number; last_triggered_at: string | Date | null }>(
        'select id::text, is_active, initial_value, cycle, last_triggered_at from notifications where id = any($1::bigint[])',
        [[reset, first, target, movedLast, movedCycle]],
      )).map((r) => [Number(r.id), { active: r.is_active, initial: Number(r.initial_value), cycle: r.cycle, last: r.last_triggered_at === null ? null : new Date(r.last_triggered_at).getTime() }]),
    );
    expect(rows.get(reset)).toEqual({ active: true, initial: 10, cycle: 5, last: now.getTime() });
    expect(rows.get(first)).toEqual({ active: true, initial: 6, cycle: 0, last: now.getTime() });
    expect(rows.get(target)).toEqual({ active: false, initial: 49, cycle: 0, last: now.getTime() });
    expect(rows.get(movedLast)).toEqual({ active: true, initial: 10, cycle: 4, last: yesterday.getTime() - 60_000 });
    expect(rows.get(movedCycle)).toEqual({ active: true, initial: 10, cycle: 5, last: yesterday.getTime() });
    const steps = await db.query<{ notification_id: string; step_key: string; user_id: string }>(
      'select notification_id::text, step_key, user_id from notification_firings where notification_id = any($1::bigint[]) order by notification_id',
      [[reset, first, target, movedLast, movedCycle]],
    );
    expect(steps.map((r) => [Number(r.notification_id), r.step_key, r.user_id])).toEqual([
      [reset, 'c5:t5', 'state-reset'],
      [first, 'c0:t3', 'state-first'],
      [target, 'c0', 'state-target'],
    ]);
  });
});

describe('a target with more significant digits than a double keeps', () => {
  it('fires only on a rate that reaches it exactly, recorded (its row matched as read), its texts showing every digit', async () => {
    // 1000000000000.00000001 is the double 1e12: a rate of 1e12 has not reached it.
    const target = '1000000000000.00000001';
    await rate(960, 1e12, 0, 'Exact');
    const [n] = await db.query<{ id: string }>(
      `insert into notifications (user_id, notification_type_id, targetable_type, targetable_id, asset_type, operator, value, initial_value)
       values ('exact', 2, 'asset', 960, 'share', '>=', $1, $1) returning id::text`,
      [target],
    );
    const plan = () => evaluator.plan(db, { assets: [{ type: 'share', id: 960 }] }, ['price-target'], 'test');
    expect((await plan()).firings).toEqual([]);

    await db.query(`update latest_rates set rate = '1000000000000.001' where asset_type = 'share' and asset_id = 960`);
    const reached = await plan();
    expect(reached.firings.map((f) => f.n.id)).toEqual([Number(n!.id)]);
    // The write applies only where initial_value still equals the one read: compared as numeric, it must be the exact text.
    expect(await recordInChunks(db, evaluator, reached, { size: 500, writers: 1, onCommitted: () => undefined })).toBe(1);
    expect(await db.query('select is_active, value, initial_value from notifications where id = $1', [n!.id])).toEqual([{ is_active: false, value: target, initial_value: target }]);
    const [firing] = await db.query<{ texts: Record<string, { title: string; body: string }> }>('select texts from notification_firings where notification_id = $1', [n!.id]);
    expect(firing!.texts.en!.body).toBe('Exact (T960) reached the target price 1,000,000,000,000.00000001: now 1,000,000,000,000.001.');
  });
});
