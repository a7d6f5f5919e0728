import type { SqlClient } from '@invest/platform';
import { NOTIFICATION_COLUMNS, type NotificationRow, toState } from '../src/evaluation/alerts-evaluator.js';
import type { EvaluationContext, RateView } from '../src/evaluation/evaluation.types.js';
import { firingOf } from '../src/evaluation/notification.decider.js';
import { type RateRow, toRateView } from '../src/rates/latest-rates.repository.js';

/**
 * The reference the candidate index is tested against: the decider on every active notification with the
 * rates of `changed` (what an event's rates cross fires); a group's firing lists every member that crossed,
 * by the stored rates. Each firing as `id: <assets it lists>`, sorted.
 */
export async function fullScan(db: SqlClient, changed: readonly RateView[], ctx: EvaluationContext, asset: (r: RateView) => string = (r) => String(r.assetId)): Promise<string[]> {
  const key = (type: string, id: number | string) => `${type}:${id}`;
  const fresh = new Map(changed.map((r) => [key(r.assetType, r.assetId), r]));
  const rates = new Map((await db.query<RateRow>('select asset_type, asset_id::text, ticker, rate, change_24h, as_of, observed_at from latest_rates')).map((r) => [key(r.asset_type, r.asset_id), toRateView(r)]));
  const members = new Map<string, string[]>();
  for (const m of await db.query<{ target_type: string; target_id: string; asset_type: string; asset_id: string }>('select target_type, target_id::text, asset_type, asset_id::text from memberships')) {
    members.set(key(m.target_type, m.target_id), [...(members.get(key(m.target_type, m.target_id)) ?? []), key(m.asset_type, m.asset_id)]);
  }
  const listed: string[] = [];
  for (const row of await db.query<NotificationRow>(`select ${NOTIFICATION_COLUMNS} from notifications n where n.is_active`)) {
    const n = toState(row);
    const assets = n.targetType === 'asset' ? [key(n.assetType!, n.targetId)] : (members.get(key(n.targetType, n.targetId)) ?? []);
    const known = (from: ReadonlyMap<string, RateView>) => assets.map((a) => from.get(a)).filter((r): r is RateView => r !== undefined);
    if (!firingOf(n, known(fresh), ctx)) continue;
    listed.push(`${n.id}: ${firingOf(n, known(rates), ctx)!.crossed.map(asset).join(' ')}`);
  }
  return listed.sort();
}
