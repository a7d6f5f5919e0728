/**
 * A chunk's firings reach Postgres as two parameters: their heads as JSON and their documents (texts, assets,
 * explanation) as one text split at control characters, matched by position. On real Postgres: every stored
 * firing carries its own notification's documents, and names holding the separators, quotes, backslashes
 * and non-Latin text are stored and read back as rendered.
 */
import { createLogger, type Db } from '@invest/platform';
import { useTestDatabase } from '@invest/platform/testing/index';
import { describe, expect, it } from 'vitest';
import { AlertsEvaluator } from '../src/evaluation/alerts-evaluator.js';
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
    const expected = new Map<number, { assetId: number; price: number }>();
    for (let a = 1; a <= 120; a++) {
      const price = 100 + a;
      await rate(a, price, 0.5, a === 7 ? awkward : null);
      const [n] = await db.query<{ id: string }>(
        `insert into notifications (user_id, notification_type_id, targetable_type, targetable_id, asset_type, operator, value, initial_value)
         values ($1, 2, 'asset', $2, 'share', '>=', $3, $3) returning id::text`,
        [`user-${a % 9}`, a, price - 1],
      );
      expected.set(Number(n!.id), { assetId: a, price });
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

    const rows = await db.query<{ notification_id: string; texts: Record<string, { title: string; body: string }>; assets: { id: number; rate: number; name: string | null }[]; explanation: { rate: number; threshold: number } }>(
      'select notification_id::text, texts, assets, explanation from notification_firings',
    );
    expect(rows).toHaveLength(121);
    for (const r of rows) {
      const id = Number(r.notification_id);
      const want = expected.get(id);
      if (!want) continue;
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
    expect(JSON.parse(published.json!.texts)).toEqual(portfolio.texts);
  });
});
