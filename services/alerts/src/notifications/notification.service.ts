import {
  type AssetInfo,
  assetInfoSchema,
  type AssetRef,
  COOLDOWN_MINUTES,
  createPriceAlertRequestSchema,
  createPriceChangeAlertRequestSchema,
  type Entitlements,
  type GetMembershipReply,
  listNotificationsRequestSchema,
  notificationIdRequestSchema,
  type NotificationReply,
  NotificationTypeIds,
  type NotificationView,
  type ActiveNotifications,
  type NotificationsPage,
  pageMeta,
  type PriceTargetDirection,
  Subjects,
} from '@invest/contracts';
import type { Db, SqlClient, Tx } from '@invest/platform/db/database';
import { Decimal } from '@invest/platform/decimal/decimal';
import { idempotent, requestFingerprint } from '@invest/platform/idempotency/idempotency';
import type { Logger } from '@invest/platform/logging/logger';
import { lockQuotaOwner, requireBelowQuota } from '@invest/platform/quota/quota';
import type { RpcClient } from '@invest/platform/rpc/rpc-client';
import { parseOrThrow, ServiceError } from '@invest/platform/rpc/service-error';
import { z } from 'zod';
import { NOTIFICATION_COLUMNS, type NotificationRow, toState } from '../evaluation/alerts-evaluator.js';
import { currentThreshold, operatorFor } from '../evaluation/notification.decider.js';
import { addSnapshotMembers, assetTargetKey, isDeleted, lockTarget, type TargetKey, targetKeyOf } from '../membership/membership.repository.js';
import { type EntitlementsAnswer, type EntitlementsClient, planRequired } from '../plans/entitlements.client.js';
import { freePlanKeeps, isPaused, recordPaidAccess } from '../plans/paid-access.repository.js';

const assetsReplySchema = z.object({ data: z.array(assetInfoSchema) });
const NOTIFICATION = 'Notification';

/**
 * Notifications one user may have, active or not: each active one is held in the candidate index, and
 * switched-off ones can be switched on again, so neither kind may pile up without end.
 */
export const DEFAULT_NOTIFICATIONS_PER_USER = 500;

export interface NotificationServiceOptions {
  db: Db;
  rpc: RpcClient;
  entitlements: EntitlementsClient;
  logger: Logger;
  clock: () => Date;
  marketTz: string;
  /** Notifications one user may have (default `DEFAULT_NOTIFICATIONS_PER_USER`). */
  perUser?: number | undefined;
}

type ViewRow = NotificationRow & {
  created_at: Date;
  ticker: string | null;
  asset_name: string | null;
  rate: string | null;
  change_24h: number | null;
  as_of: Date | null;
  assets_count: string | null;
};

const VIEW_SQL = `select ${NOTIFICATION_COLUMNS}, n.created_at, coalesce(a.ticker, r.ticker) as ticker, a.name as asset_name, r.rate::text, r.change_24h, r.as_of,
    case when n.targetable_type = 'asset' then null
      else (select count(*) from memberships m where m.target_type = n.targetable_type and m.target_id = n.targetable_id)::text end as assets_count
  from notifications n
  left join assets a on n.targetable_type = 'asset' and a.asset_type = n.asset_type and a.asset_id = n.targetable_id
  left join latest_rates r on n.targetable_type = 'asset' and r.asset_type = n.asset_type and r.asset_id = n.targetable_id`;

/** Creating, listing, switching and deleting a user's notifications; a user only sees their own (404 otherwise). */
export class NotificationService {
  constructor(private readonly o: NotificationServiceOptions) {}

  /**
   * `POST /api/price-alert`: price-target; the operator is fixed now from the direction asked for, or else from
   * the current rate. A repeat with the same
   * `Idempotency-Key` gets the first create's response before any check (see `idempotent`): the rate, the plan or
   * the asset may have changed since.
   */
  async createPriceAlert(userId: string, input: unknown, idempotencyKey?: string): Promise<NotificationReply> {
    const req = parseOrThrow(createPriceAlertRequestSchema, input);
    const subject = Subjects.alerts.priceAlertsCreate;
    return idempotent<NotificationReply>(this.o.db, { scope: subject, userId, key: idempotencyKey, fingerprint: requestFingerprint(subject, req) }, async (finish) => {
      const plan = await this.requireTarget(userId, 'asset');
      const asset = await this.requireAsset(req.assetable, 'assetable.id', userId);
      const current = await this.currentRate(asset);
      if (current === null) throw ServiceError.validation({ target_price: ['The asset has no current rate yet, so the direction of the target cannot be decided.'] });
      const operator = operatorFor(Decimal.of(req.target_price), current.rate, req.direction);
      if (!operator) throw ServiceError.validation({ target_price: [targetRefusal(req.direction, current.rate)] });
      return this.o.db.transaction(async (tx) => {
        await this.requireRoom(tx, userId, plan);
        await requireStillThere(tx, assetTargetKey(asset.type, asset.id), 'assetable.id', asset.type);
        await rememberAsset(tx, asset);
        const now = this.o.clock();
        const [row] = await tx.query<{ id: string }>(
          `insert into notifications (user_id, notification_type_id, targetable_type, targetable_id, asset_type, name, operator, value, initial_value, cooldown_minutes, operator_rate_as_of, created_at, updated_at)
           values ($1, $2, 'asset', $3, $4, $5, $6, $7, $7, null, $8, $9, $9) returning id::text`,
          [userId, NotificationTypeIds.priceTarget, asset.id, asset.type, req.name ?? null, operator, req.target_price, decidedAt(current.asOf, now), now],
        );
        return finish(tx, { data: await this.view(tx, userId, Number(row!.id)) });
      });
    });
  }

  /** `POST /api/price-change-alert`: price-change on an asset, or on a portfolio or watchlist of the user; a repeat as in createPriceAlert. */
  async createPriceChangeAlert(userId: string, input: unknown, idempotencyKey?: string): Promise<NotificationReply> {
    const req = parseOrThrow(createPriceChangeAlertRequestSchema, input);
    const subject = Subjects.alerts.priceChangeAlertsCreate;
    return idempotent<NotificationReply>(this.o.db, { scope: subject, userId, key: idempotencyKey, fingerprint: requestFingerprint(subject, req) }, async (finish) => {
      const plan = await this.requireTarget(userId, req.targetable_type);
      const asset = req.targetable_type === 'asset' ? await this.requireAsset({ type: req.assetable_type_simplified!, id: req.targetable_id }, 'targetable_id', userId) : undefined;
      const group = req.targetable_type === 'asset' ? undefined : await this.requireGroup(userId, req.targetable_type, req.targetable_id);
      return this.o.db.transaction(async (tx) => {
        await this.requireRoom(tx, userId, plan);
        if (asset) {
          await requireStillThere(tx, assetTargetKey(asset.type, asset.id), 'targetable_id', asset.type);
          await rememberAsset(tx, asset);
        }
        if (group) {
          await requireStillThere(tx, { type: group.target_type, id: group.target_id }, 'targetable_id', group.target_type);
          await addSnapshotMembers(tx, { type: group.target_type, id: group.target_id, userId }, group.assets);
        }
        const [row] = await tx.query<{ id: string }>(
          `insert into notifications (user_id, notification_type_id, targetable_type, targetable_id, asset_type, name, target_name, operator, value, initial_value, cooldown_minutes, created_at, updated_at)
           values ($1, $2, $3, $4, $5, $6, $7, '>=', $8, $8, $9, $10, $10) returning id::text`,
          [
            userId,
            NotificationTypeIds.priceChange,
            req.targetable_type,
            req.targetable_id,
            asset?.type ?? null,
            req.name ?? null,
            group?.name ?? null,
            req.threshold,
            COOLDOWN_MINUTES[req.frequency],
            this.o.clock(),
          ],
        );
        return finish(tx, { data: await this.view(tx, userId, Number(row!.id)) });
      });
    });
  }

  async list(userId: string, input: unknown): Promise<NotificationsPage> {
    const q = parseOrThrow(listNotificationsRequestSchema, input);
    const [{ total } = { total: '0' }] = await this.o.db.query<{ total: string }>('select count(*)::text as total from notifications where user_id = $1', [userId]);
    const rows = await this.o.db.query<ViewRow>(`${VIEW_SQL} where n.user_id = $1 order by n.id desc limit $2 offset $3`, [userId, q.per_page, (q.page - 1) * q.per_page]);
    const keeps = await freePlanKeeps(this.o.db, [userId], this.o.clock());
    const active = await this.activeNotifications(userId);
    return { data: rows.map((r) => this.toView(r, keeps)), meta: pageMeta(q, Number(total), rows.length), ...(active ? { active_notifications: active } : {}) };
  }

  /**
   * How many notifications are active and how many the plan allows, as the plan gate counts them
   * (requireActiveSlot), so the client shows the limit before running into it. The list does not fail with
   * billing: without its answer the figure is left out.
   */
  private async activeNotifications(userId: string): Promise<ActiveNotifications | undefined> {
    const plan = await this.o.entitlements.answer(userId).catch((err: unknown) => {
      this.o.logger.warn({ err }, 'the plan was not known for the list of notifications; its limit is left out');
      return undefined;
    });
    if (!plan) return undefined;
    const [{ n } = { n: '0' }] = await this.o.db.query<{ n: string }>('select count(*)::text as n from notifications where user_id = $1 and is_active', [userId]);
    return { count: Number(n), limit: plan.entitlements.limits.activeNotifications, paid: plan.entitlements.paid };
  }

  /**
   * Toggles is_active. A price-change's threshold returns to its step, and every switch starts a new cycle,
   * so a re-activated price-target can fire again. Switching on counts against the plan, and the target must
   * still exist: the plan and the target's owner are asked before any lock is taken (a slow service holds
   * none), the tombstone under the target's lock. A toggle that lands in between decides again.
   */
  async switch(userId: string, input: unknown): Promise<NotificationReply> {
    const { id } = parseId(input);
    for (let attempt = 1; ; attempt++) {
      const [seen] = await this.o.db.query<SwitchRow>('select is_active, targetable_type, targetable_id::text, asset_type from notifications where id = $1 and user_id = $2', [id, userId]);
      if (!seen) throw ServiceError.notFound(NOTIFICATION);
      const on = !seen.is_active;
      const plan = on ? await this.requireTarget(userId, seen.targetable_type) : undefined;
      if (on) await this.requireLiveTarget(userId, seen);
      const reply = await this.o.db.transaction(async (tx) => {
        await lockQuotaOwner(tx, `notifications:${userId}`);
        // The target's lock before the row's, as a deletion upstream takes them; under it the tombstone cannot change.
        if (on) await requireStillThere(tx, targetKeyOf(seen), 'targetable_id', seen.targetable_type === 'asset' ? seen.asset_type! : seen.targetable_type);
        const [row] = await tx.query<{ is_active: boolean }>('select is_active from notifications where id = $1 and user_id = $2 for update', [id, userId]);
        if (!row) throw ServiceError.notFound(NOTIFICATION);
        if (row.is_active !== seen.is_active) return undefined;
        if (plan) {
          await recordPaidAccess(tx, plan);
          await this.requireActiveSlot(tx, userId, plan.entitlements);
        }
        await tx.query(
          `update notifications set is_active = not is_active, cycle = cycle + 1, updated_at = $2,
             initial_value = case when notification_type_id = $3 then value else initial_value end
           where id = $1`,
          [id, this.o.clock(), NotificationTypeIds.priceChange],
        );
        return { data: await this.view(tx, userId, id) };
      });
      if (reply) return reply;
      if (attempt >= SWITCH_ATTEMPTS) throw ServiceError.conflict('The notification was switched by another request meanwhile; try again.');
    }
  }

  async delete(userId: string, input: unknown): Promise<{ data: { id: number; deleted: true } }> {
    const { id } = parseId(input);
    const rows = await this.o.db.transaction(async (tx) => {
      const deleted = await tx.query('delete from notifications where id = $1 and user_id = $2 returning id', [id, userId]);
      // Its firings go with it (no foreign key since migration 0007). After the delete: a firing of it that was
      // committing held the row, so it is visible to this statement.
      if (deleted.length > 0) await tx.query('delete from notification_firings where notification_id = $1', [id]);
      return deleted;
    });
    if (rows.length === 0) throw ServiceError.notFound(NOTIFICATION);
    return { data: { id, deleted: true } };
  }

  private async view(db: SqlClient, userId: string, id: number): Promise<NotificationView> {
    const [row] = await db.query<ViewRow>(`${VIEW_SQL} where n.id = $1 and n.user_id = $2`, [id, userId]);
    if (!row) throw ServiceError.notFound(NOTIFICATION);
    return this.toView(row, await freePlanKeeps(db, [userId], this.o.clock()));
  }

  /** `keeps`: what the free plan keeps firing of the users whose paid access ended (`freePlanKeeps`). */
  private toView(r: ViewRow, keeps: ReadonlyMap<string, ReadonlySet<number>>): NotificationView {
    const s = toState(r);
    const threshold = s.kind === 'price-change' ? currentThreshold(s, { now: this.o.clock(), marketTz: this.o.marketTz }).initialValue : s.initialValue;
    return {
      id: s.id,
      type: s.kind,
      notification_type_id: r.notification_type_id,
      name: r.name,
      is_active: s.isActive,
      paused: isPaused(s, keeps),
      last_triggered_at: s.lastTriggeredAt?.toISOString() ?? null,
      // Canonical decimal text (decimalOutputSchema): a target with more digits than a double keeps is answered
      // with all of them; the gateway writes them as JSON numbers.
      condition: { operator: s.operator, value: s.value.toString(), initial_value: threshold.toString(), cooldown_minutes: s.cooldownMinutes },
      target: {
        type: s.targetType,
        id: s.targetId,
        asset_type: s.assetType,
        ticker: r.ticker,
        name: s.targetType === 'asset' ? r.asset_name : r.target_name,
        current_rate: r.rate === null ? null : Decimal.of(r.rate).toString(),
        price_change_percentage_24h: r.change_24h,
        rate_as_of: r.as_of ? new Date(r.as_of).toISOString() : null,
        assets_count: r.assets_count === null ? null : Number(r.assets_count),
      },
      created_at: new Date(r.created_at).toISOString(),
    };
  }

  /** Plan gate: the target type must be one the plan allows. Returns billing's answer, asked before any transaction. */
  private async requireTarget(userId: string, type: 'asset' | 'portfolio' | 'watchlist'): Promise<EntitlementsAnswer> {
    const answer = await this.o.entitlements.answer(userId);
    const e = answer.entitlements;
    if (!e.limits.notificationTargets.includes(type)) {
      throw planRequired(`Notifications on a ${type} need a paid plan.`, { notification_targets: e.limits.notificationTargets, plan: e.plan.code });
    }
    return answer;
  }

  /**
   * A create: one more notification must fit the per-user limit (a 422 on `notifications`) and, active, the
   * plan's (a 403), both counted under the user's lock, so concurrent creates cannot both take the last one.
   * The paid access the plan was granted under is recorded with it: a user whose billing events alerts has not
   * read (yet) is paused when it ends all the same.
   */
  private async requireRoom(tx: Tx, userId: string, plan: EntitlementsAnswer): Promise<void> {
    await lockQuotaOwner(tx, `notifications:${userId}`);
    const limit = this.o.perUser ?? DEFAULT_NOTIFICATIONS_PER_USER;
    await requireBelowQuota(tx, {
      limit,
      rowsSql: 'select 1 from notifications where user_id = $1',
      params: [userId],
      field: 'notifications',
      message: `You can have at most ${limit} notifications (the notifications per user limit).`,
    });
    await recordPaidAccess(tx, plan);
    await this.requireActiveSlot(tx, userId, plan.entitlements);
  }

  /** Plan gate: one more active notification must fit the plan's limit (the caller holds the user's lock). */
  private async requireActiveSlot(tx: Tx, userId: string, e: Entitlements): Promise<void> {
    const limit = e.limits.activeNotifications;
    if (limit === null) return;
    const [{ n } = { n: '0' }] = await tx.query<{ n: string }>('select count(*)::text as n from notifications where user_id = $1 and is_active', [userId]);
    if (Number(n) >= limit) {
      throw planRequired(`Your plan allows ${limit} active notifications.`, { active_notifications: limit, plan: e.plan.code });
    }
  }

  /**
   * Switching on: the target must still exist, as on create (a target deleted upstream deactivated the
   * notification; switched on, it could never fire and would hold one of the plan's active slots). Asked of
   * its owner (the screener, portfolios); a 422 on `targetable_id`, the field that named it.
   */
  private async requireLiveTarget(userId: string, n: SwitchRow): Promise<void> {
    const id = Number(n.targetable_id);
    if (n.targetable_type === 'asset') await this.requireAsset({ type: n.asset_type as AssetRef['type'], id }, 'targetable_id', userId);
    else await this.requireGroup(userId, n.targetable_type, id);
  }

  private async requireAsset(ref: AssetRef, field: string, userId: string): Promise<AssetInfo> {
    const missing = () => ServiceError.validation({ [field]: [`The selected ${ref.type} (id ${ref.id}) does not exist.`] });
    // Asked for the user: the screener describes a custom asset only to its owner (anyone else's does not exist).
    const raw = await this.o.rpc.request<unknown>(Subjects.screener.assetsGet, { refs: [ref] }, { userId });
    const reply = assetsReplySchema.safeParse(raw);
    if (!reply.success) {
      this.o.logger.error({ issues: reply.error.issues.slice(0, 5) }, 'screener.assets.get answered in an unexpected shape');
      throw ServiceError.unavailable('The screener service answered unexpectedly.');
    }
    const asset = reply.data.data.find((a) => a.type === ref.type && a.id === ref.id);
    if (!asset) throw missing();
    return asset;
  }

  private async requireGroup(userId: string, type: 'portfolio' | 'watchlist', id: number): Promise<GetMembershipReply['data']> {
    try {
      const reply = await this.o.rpc.request<GetMembershipReply>(Subjects.portfolios.membershipGet, { target_type: type, target_id: id }, { userId });
      return reply.data;
    } catch (err) {
      if (err instanceof ServiceError && (err.code === 'not_found' || err.code === 'validation_failed')) {
        throw ServiceError.validation({ targetable_id: [`The selected ${type} does not exist.`] });
      }
      throw err;
    }
  }

  /**
   * The newer of the screener's rate and the latest one alerts received, with its provider time (`asOf`, null
   * when the screener gave none): the price-target's operator is decided from it, and a rate older than it
   * never fires the notification (`evaluatePriceTarget`).
   */
  private async currentRate(asset: AssetInfo): Promise<{ rate: Decimal; asOf: Date | null } | null> {
    const [local] = await this.o.db.query<{ rate: string | null; as_of: Date }>('select rate, as_of from latest_rates where asset_type = $1 and asset_id = $2', [asset.type, asset.id]);
    const remoteAt = asset.rate_updated_at ? Date.parse(asset.rate_updated_at) : Number.NaN;
    const localAt = local ? new Date(local.as_of).getTime() : Number.NaN;
    if (local && local.rate !== null && !(localAt < remoteAt)) return { rate: Decimal.of(local.rate), asOf: new Date(localAt) };
    if (asset.current_rate !== null && asset.current_rate !== undefined) return { rate: Decimal.of(asset.current_rate), asOf: Number.isNaN(remoteAt) ? null : new Date(remoteAt) };
    return local && local.rate !== null ? { rate: Decimal.of(local.rate), asOf: new Date(localAt) } : null;
  }
}

/**
 * When a price-target's direction was decided: its rate's provider time, but never after now (a provider clock
 * ahead must not keep the rates that follow from firing it).
 */
function decidedAt(asOf: Date | null, now: Date): Date | null {
  return asOf && asOf.getTime() > now.getTime() ? now : asOf;
}

/** Why a price-target's target was refused (`operatorFor` gave no operator): it equals the rate, or the rate is already past it. */
function targetRefusal(direction: PriceTargetDirection | null | undefined, rate: Decimal): string {
  const now = rate.toString();
  if (direction === 'above') return `The target is already reached: for direction above the target price must be above the current rate (${now}).`;
  if (direction === 'below') return `The target is already reached: for direction below the target price must be below the current rate (${now}).`;
  return `The target price must differ from the current rate (${now}).`;
}

function parseId(input: unknown): { id: number } {
  const parsed = notificationIdRequestSchema.safeParse(input);
  // A malformed id names no notification.
  if (!parsed.success) throw ServiceError.notFound(NOTIFICATION);
  return parsed.data;
}

async function rememberAsset(tx: SqlClient, a: AssetInfo): Promise<void> {
  await tx.query(
    `insert into assets (asset_type, asset_id, ticker, name) values ($1, $2, $3, $4)
     on conflict (asset_type, asset_id) do update set ticker = excluded.ticker, name = excluded.name`,
    [a.type, a.id, a.ticker, a.name],
  );
}

type SwitchRow = Pick<NotificationRow, 'is_active' | 'targetable_type' | 'targetable_id' | 'asset_type'>;

/** Reads and locks a switch retries when another toggle of the same notification lands in between. */
const SWITCH_ATTEMPTS = 5;

/** A target its owner deleted is refused under the target's lock (`lockTarget`), so a deletion cannot slip in between. */
async function requireStillThere(tx: Tx, key: TargetKey, field: string, what: string): Promise<void> {
  await lockTarget(tx, key);
  if (await isDeleted(tx, key)) throw ServiceError.validation({ [field]: [`The selected ${what} does not exist.`] });
}
