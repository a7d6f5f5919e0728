import { randomUUID } from 'node:crypto';
import { type CrossedAsset, type FiringExplanation, NotificationTypeIds } from '@invest/contracts';
import type { Db, SqlClient, Tx } from '@invest/platform/db/database';
import { pgError } from '@invest/platform/db/pg-error';
import { Decimal } from '@invest/platform/decimal/decimal';
import type { Logger } from '@invest/platform/logging/logger';
import { startOfDayInZone } from '@invest/platform/time/zoned-time';
import { type CommittedFirings, type FiringJson, firingJson, type PriceFiringRecord } from '../delivery/firing-publisher.js';
import { freePlanKeeps, isPaused } from '../plans/paid-access.repository.js';
import { CandidateIndex } from './candidate-index.js';
import { lockFeeds } from './feed-locks.js';
import { ratesSince, storedRates } from '../rates/latest-rates.repository.js';
import type { EvaluationContext, FiringDecision, NotificationKind, NotificationState, RateView } from './evaluation.types.js';
import { afterFiring, firingOf } from './notification.decider.js';
import { explain, isoOf, type NotificationTypeRow, type RenderedTexts, renderFiring } from './render-firing.js';

export interface EvaluatorOptions {
  logger: Logger;
  clock: () => Date;
  maxRateAgeMs: number;
  marketTz: string;
  /** Rows per read while the candidate index loads (default 50,000). */
  indexLoadPage?: number;
}

export interface NotificationRow {
  id: string;
  user_id: string;
  notification_type_id: number;
  targetable_type: 'asset' | 'portfolio' | 'watchlist';
  targetable_id: string;
  asset_type: string | null;
  name: string | null;
  target_name: string | null;
  is_active: boolean;
  operator: '>=' | '<=';
  /** `numeric` as Postgres writes it. */
  value: string;
  initial_value: string;
  cooldown_minutes: number | null;
  last_triggered_at: Date | null;
  cycle: number;
  operator_rate_as_of: Date | null;
}

export const NOTIFICATION_COLUMNS =
  'n.id::text, n.user_id, n.notification_type_id, n.targetable_type, n.targetable_id::text, n.asset_type, n.name, n.target_name, n.is_active, n.operator, n.value, n.initial_value, n.cooldown_minutes, n.last_triggered_at, n.cycle, n.operator_rate_as_of';

export function toState(r: NotificationRow): NotificationState {
  return {
    id: Number(r.id),
    userId: r.user_id,
    kind: r.notification_type_id === NotificationTypeIds.priceTarget ? 'price-target' : 'price-change',
    targetType: r.targetable_type,
    targetId: Number(r.targetable_id),
    assetType: r.asset_type as NotificationState['assetType'],
    isActive: r.is_active,
    operator: r.operator,
    value: Decimal.of(r.value),
    initialValue: Decimal.of(r.initial_value),
    cooldownMinutes: r.cooldown_minutes,
    lastTriggeredAt: r.last_triggered_at ? new Date(r.last_triggered_at) : null,
    cycle: r.cycle,
    operatorRateAsOf: r.operator_rate_as_of ? new Date(r.operator_rate_as_of) : null,
  };
}

/**
 * Which notifications an evaluation looks at: those the given assets can affect (with their new rates, the
 * candidate index is used), or (sweeps) every one.
 */
export type EvaluationScope = { assets: readonly { type: string; id: number }[]; rates?: readonly RateView[] } | { all: true };

export interface EvaluationResult {
  candidates: number;
  fired: number;
  firingIds: number[];
  /** What committed with the caller's transaction, to publish once it committed. */
  committed: CommittedFirings<PriceFiringRecord>[];
}

/** A firing decided on a row as it was read; recorded only if the row is still so. */
export interface PlannedFiring {
  n: NotificationState;
  d: FiringDecision;
  /** The state the firing leaves (`evolve`): written with it, and noted by the index once it committed. */
  next: NotificationState;
}

/** What an evaluation read and decided, recorded afterwards in one or more transactions. */
export interface EvaluationPlan {
  candidates: number;
  firings: PlannedFiring[];
  now: Date;
  source: string;
  targetNames: Map<number, string | null>;
  assetNames: Map<string, AssetName>;
}

/** An asset's ticker and name as the firings' texts list it. */
interface AssetName {
  ticker: string;
  name: string | null;
}

const assetKey = (type: string, id: number | string) => `${type}:${id}`;

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * Separators of a chunk's parameter: between firings, and between a firing's fields. Every field is a number,
 * an ISO time, a fixed word (`t`/`f`, the kind, the step key), a UUID or JSON text, which holds control characters
 * only escaped (`\u001e`), so neither occurs inside a field.
 */
const RECORD = '\x1e';
const FIELD = '\x1f';

/** What a firing's texts, assets and explanation are made of, rendered and as JSON: shared by firings alike. */
interface FiringDocuments {
  assets: CrossedAsset[];
  rendered: RenderedTexts;
  explanation: FiringExplanation;
  documents: FiringJson;
  /** Its entry in the statement's documents parameter: its path (as JSON) and its three documents. */
  tail: string;
}

/**
 * What a firing's documents are made of besides its one crossed rate (which a plan holds as one object per
 * asset, so firings on it share that object) and the plan's time, source and names; null for a firing
 * naming several assets. Firings of one asset, step and cooldown have the same documents: in the bench's
 * batches, 10,493 such firings had 288.
 */
function documentsKey(n: NotificationState, d: FiringDecision, targetName: string | null): string | null {
  if (d.crossed.length !== 1 || d.headline !== d.crossed[0]) return null;
  return `${n.kind} ${n.operator} ${n.targetType} ${n.targetId} ${d.threshold.toString()} ${d.nextThreshold?.toString()} ${d.cooldownEndsAt?.getTime()} ${JSON.stringify(targetName)}`;
}

/** What the candidate index's read gave: the candidates' rows, their groups' members, and the members' stored rates. */
interface CandidatesRead {
  rows: NotificationRow[];
  groups: Map<string, readonly string[]>;
  stored: RateView[];
}

/**
 * Reads the notifications a rate change can fire (the candidate index's, by id: the one candidate path, for
 * events and sweeps alike), decides with the notification decider, and records each firing exactly once: the
 * notification's new state (`evolve`) is written only if the row is still as it was read, and the firing's
 * (notification, step) key is unique, so a redelivered event, a second instance or a sweep racing the consumer
 * cannot fire a step twice. Each chunk's firings are named by a `firing_publications` row in the same
 * transaction, published once it committed.
 */
export class AlertsEvaluator {
  private types: Map<number, NotificationTypeRow> | undefined;
  /** Each plan's documents, across its chunks: by the crossed rate's object, then `documentsKey`. */
  private readonly documentsByPlan = new WeakMap<EvaluationPlan, Map<RateView, Map<string, FiringDocuments>>>();
  /** Milliseconds of each phase of the last evaluation (the consumer logs them at debug with each rate event). */
  lastTimings: Record<string, number> = {};
  /** Every active notification by what can fire it (docs/decisions/0025-alerts-candidate-index.md). */
  readonly index: CandidateIndex;
  private loading: Promise<void> | undefined;
  /** The tail of the evaluations run one at a time (`exclusive`). */
  private running: Promise<unknown> = Promise.resolve();

  constructor(private readonly opts: EvaluatorOptions) {
    this.index = new CandidateIndex(opts.indexLoadPage);
  }

  /** The evaluator's clock (tests move it). */
  now(): Date {
    return this.opts.clock();
  }

  /** Loads the candidate index (start-up, before the rates consumer). */
  async loadIndex(db: SqlClient): Promise<void> {
    const t0 = performance.now();
    await this.index.load(db);
    this.index.prepare(startOfDayInZone(this.opts.clock(), this.opts.marketTz));
    this.opts.logger.debug({ notifications: this.index.size, ms: Math.round(performance.now() - t0) }, 'alerts: candidate index loaded');
  }

  /** Loads the candidate index unless it is (an evaluator the service did not start: a test, the command line). */
  private ensureIndex(db: SqlClient): Promise<void> {
    if (this.index.loaded) return Promise.resolve();
    this.loading ??= this.loadIndex(db).finally(() => (this.loading = undefined));
    return this.loading;
  }

  /**
   * Runs `fn` when the evaluations before it are done: the index is read, matched and brought in line with the
   * rows (and with the firings that committed) by one evaluation at a time, so a sweep never applies rows it
   * read before a change an event applied in between.
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.running.then(fn, fn);
    this.running = run.catch(() => undefined);
    return run;
  }

  async loadTypes(db: SqlClient): Promise<Map<number, NotificationTypeRow>> {
    const rows = await db.query<{ id: number; code: NotificationKind; title_template: Record<string, string>; body_template: Record<string, string>; path: string }>(
      'select id, code, title_template, body_template, path from notification_types',
    );
    this.types = new Map(rows.map((r) => [r.id, { id: r.id, code: r.code, titleTemplate: r.title_template, bodyTemplate: r.body_template, path: r.path }]));
    return this.types;
  }

  /**
   * Reads, decides and records in the caller's transaction, all firings at once; publish `committed` after it
   * commits. For tests that hold or race one evaluation: the service records in chunks (`recordInChunks`).
   */
  evaluate(tx: Tx, scope: EvaluationScope, kinds: readonly NotificationKind[], source: string): Promise<EvaluationResult> {
    return this.exclusive(async () => {
      const plan = await this.plan(tx, scope, kinds, source);
      const committed = await this.record(tx, plan.firings, plan);
      const firingIds = committed ? committed.firings.map((f) => f.id) : [];
      return { candidates: plan.candidates, fired: firingIds.length, firingIds, committed: committed ? [committed] : [] };
    });
  }

  /**
   * The firings the latest rates of `scope` cause (a sweep: every fresh rate), without writing: they are
   * recorded by `record`, in the same transaction or in chunks of their own.
   */
  async plan(db: SqlClient, scope: EvaluationScope, kinds: readonly NotificationKind[], source: string): Promise<EvaluationPlan> {
    const ctx = this.context();
    const freshAfter = new Date(ctx.now.getTime() - this.opts.maxRateAgeMs);
    const timings: Record<string, number> = {};
    this.lastTimings = timings;
    await this.ensureIndex(db);
    const rates = 'all' in scope ? await ratesSince(db, freshAfter) : (scope.rates ?? (await storedRates(db, scope.assets.map((a) => assetKey(a.type, a.id)))));
    const read = await this.readCandidates(db, rates, ctx.now, timings);
    const rows = read.rows.filter((r) => kinds.includes(r.notification_type_id === NotificationTypeIds.priceTarget ? 'price-target' : 'price-change'));
    return this.decideRead(db, { ...read, rows }, rates, ctx, source, timings);
  }

  /**
   * A RatesUpdated while `latest` tells which of its rates become the latest (in the inbox transaction: the
   * consumer's check before it stores them, `pendingRates`): the index's candidates for the batch's rates are
   * read on a connection of their own meanwhile, and decided once `latest` is known. When that is the whole
   * batch, this is `plan` on the batch's rates; otherwise (a rate older than the stored one arrived late)
   * `store` writes the rates and `plan` runs in `tx` on the rates that changed. Only reads.
   */
  async planEvent(db: Pick<Db, 'transaction'>, tx: Tx, batch: readonly RateView[], latest: Promise<RateView[]>, source: string, store: () => Promise<void>): Promise<EvaluationPlan> {
    const ctx = this.context();
    const t0 = performance.now();
    const timings: Record<string, number> = {};
    this.lastTimings = timings;
    // Observed whatever happens below (its failure is thrown after the read settled).
    latest.catch(() => undefined);
    const reading = db.transaction(async (c) => {
      await this.ensureIndex(c);
      return this.readCandidates(c, batch, ctx.now, timings);
    });
    const [known, read] = await Promise.allSettled([latest, reading]);
    if (known.status === 'rejected') throw known.reason;
    if (read.status === 'rejected') throw read.reason;
    timings.latestRates = performance.now() - t0;
    const changed = known.value;
    if (changed.length === batch.length) return this.decideRead(tx, read.value, batch, ctx, source, timings);
    await store();
    if (changed.length === 0) return { candidates: 0, firings: [], now: ctx.now, source, targetNames: new Map(), assetNames: new Map() };
    return this.plan(tx, { assets: changed.map((r) => ({ type: r.assetType, id: r.assetId })), rates: changed }, ['price-target', 'price-change'], source);
  }

  private context(): EvaluationContext {
    return { now: this.opts.clock(), maxRateAgeMs: this.opts.maxRateAgeMs, marketTz: this.opts.marketTz };
  }

  /**
   * The index's candidates for the fresh ones of `rates`, with their rows (the rows' state now decides) and
   * their groups' members from the index (refreshed by the same read, as current as a read of `memberships`);
   * only members outside `rates` read their stored rates (usually none).
   */
  private async readCandidates(c: SqlClient, rates: readonly RateView[], now: Date, timings: Record<string, number>): Promise<CandidatesRead> {
    const t0 = performance.now();
    // JIT compiling these short queries costs more than running them.
    await c.query('set local jit = off');
    await this.index.refresh(c);
    const freshAfter = now.getTime() - this.opts.maxRateAgeMs;
    const ids = this.index.candidates(
      rates.filter((r) => r.asOf.getTime() >= freshAfter),
      startOfDayInZone(now, this.opts.marketTz),
      now,
    );
    const groups = this.index.groupMembers(ids);
    const given = new Set(rates.map((r) => assetKey(r.assetType, r.assetId)));
    const outside = new Set<string>();
    for (const members of groups.values()) for (const key of members) if (!given.has(key)) outside.add(key);
    const rows = ids.length === 0 ? [] : await c.query<NotificationRow>(`select ${NOTIFICATION_COLUMNS} from notifications n where n.id = any($1::bigint[]) and n.is_active`, [ids]);
    const stored = await storedRates(c, [...outside]);
    this.index.sync(ids, rows);
    Object.assign(timings, { indexed: ids.length, outsideRates: stored.length, reads: performance.now() - t0 });
    return { rows, groups, stored };
  }

  /** The rates each candidate sees (its asset's, or its group's members'), then `decide`, which keeps the fresh ones that crossed. */
  private async decideRead(db: SqlClient, read: CandidatesRead, rates: readonly RateView[], ctx: EvaluationContext, source: string, timings: Record<string, number>): Promise<EvaluationPlan> {
    const byAsset = new Map(rates.map((r) => [assetKey(r.assetType, r.assetId), r]));
    const storedByAsset = new Map(read.stored.map((r) => [assetKey(r.assetType, r.assetId), r]));
    const byGroup = new Map<string, RateView[]>();
    for (const [group, members] of read.groups) {
      for (const key of members) {
        const r = byAsset.get(key) ?? storedByAsset.get(key);
        if (r) push(byGroup, group, r);
      }
    }
    return this.decide(db, read.rows, byAsset, byGroup, ctx, source, timings);
  }

  /** The decider on each candidate (once), then the names of what crossed, once for the whole batch. */
  private async decide(
    db: SqlClient,
    candidateRows: readonly NotificationRow[],
    byAsset: ReadonlyMap<string, RateView>,
    byGroup: ReadonlyMap<string, RateView[]>,
    ctx: EvaluationContext,
    source: string,
    timings: Record<string, number>,
  ): Promise<EvaluationPlan> {
    const t0 = performance.now();
    const targetNames = new Map(candidateRows.map((r) => [Number(r.id), r.target_name]));
    const empty: EvaluationPlan = { candidates: 0, firings: [], now: ctx.now, source, targetNames, assetNames: new Map() };
    const seen = new Set<number>();
    const decisions: PlannedFiring[] = [];
    for (const row of candidateRows) {
      const n = toState(row);
      if (seen.has(n.id)) continue;
      seen.add(n.id);
      const own = n.targetType === 'asset' ? byAsset.get(assetKey(n.assetType!, n.targetId)) : undefined;
      const d = firingOf(n, own ? [own] : (byGroup.get(assetKey(n.targetType, n.targetId)) ?? []), ctx);
      if (d) decisions.push({ n, d, next: afterFiring(n, d) });
    }
    if (decisions.length === 0) return { ...empty, candidates: seen.size };
    const firings = await this.withinPlans(db, decisions, ctx.now, timings);
    if (firings.length === 0) return { ...empty, candidates: seen.size };
    // Names once for the whole batch, whichever chunk a firing is recorded in.
    const assetNames = await this.assetNames(db, firings.flatMap(({ d }) => d.crossed));
    timings.decide = performance.now() - t0;
    return { candidates: seen.size, firings, now: ctx.now, source, targetNames, assetNames };
  }

  /**
   * The decisions without those paused: of a user whose paid access ended (`paid_access`, from billing's events),
   * what the free plan does not keep (README, "When paid access ends"). One read for the batch, of what alerts
   * stores: billing is never asked here.
   */
  private async withinPlans(db: SqlClient, decisions: PlannedFiring[], now: Date, timings: Record<string, number>): Promise<PlannedFiring[]> {
    const t0 = performance.now();
    const keeps = await freePlanKeeps(db, [...new Set(decisions.map(({ n }) => n.userId))], now);
    timings.paidAccess = performance.now() - t0;
    if (keeps.size === 0) return decisions;
    const firing = decisions.filter(({ n }) => !isPaused(n, keeps));
    if (firing.length < decisions.length) this.opts.logger.debug({ paused: decisions.length - firing.length }, 'paused notifications not fired (paid access ended)');
    return firing;
  }

  /**
   * Records planned firings in `tx`: the notifications' new state (only where a row is still as read), the
   * firing rows (unique per step) and their `firing_publications` row. Returns the firings to publish once
   * `tx` committed, or null when none applied.
   */
  async record(tx: Tx, decisions: readonly PlannedFiring[], plan: EvaluationPlan): Promise<CommittedFirings<PriceFiringRecord> | null> {
    if (decisions.length === 0) return null;
    const { now, source, targetNames, assetNames: names } = plan;
    const types = this.types ?? (await this.loadTypes(tx));
    const timings = this.lastTimings;
    const t0 = performance.now();
    // The feed locks are taken while the firings are rendered here.
    const locking = lockFeeds(tx, decisions.map(({ n }) => n.userId));
    locking.catch(() => undefined);
    let shared = this.documentsByPlan.get(plan);
    if (!shared) this.documentsByPlan.set(plan, (shared = new Map()));
    // Each distinct documents once in the statement's documents parameter ($3; firings alike share one `made`),
    // its records naming them by their place there (from 1).
    const documentsAt = new Map<FiringDocuments, number>();
    const tails: string[] = [];
    const prepared = decisions.map(({ n, d, next: x }) => {
      const targetName = targetNames.get(n.id) ?? null;
      const key = documentsKey(n, d, targetName);
      let alike: Map<string, FiringDocuments> | undefined;
      if (key !== null) {
        alike = shared.get(d.headline);
        if (!alike) shared.set(d.headline, (alike = new Map()));
      }
      let made = key === null ? undefined : alike?.get(key);
      if (!made) {
        const type = types.get(n.kind === 'price-target' ? NotificationTypeIds.priceTarget : NotificationTypeIds.priceChange)!;
        const assets: CrossedAsset[] = d.crossed.map((r) => ({
          type: r.assetType,
          id: r.assetId,
          ticker: names.get(assetKey(r.assetType, r.assetId))?.ticker ?? r.ticker,
          name: names.get(assetKey(r.assetType, r.assetId))?.name ?? null,
          rate: r.rate,
          price_change_percentage_24h: r.change24h,
          as_of: isoOf(r.asOf),
        }));
        const rendered = renderFiring(type, d, { type: n.targetType, id: n.targetId, name: targetName }, assets);
        const explanation = explain(d, n.operator, now, source);
        // Its documents as JSON once, for its row here and its NotificationFired.
        const documents = firingJson(rendered.texts, assets, explanation);
        const tail = `${JSON.stringify(rendered.path)}${FIELD}${documents.texts}${FIELD}${documents.assets}${FIELD}${documents.explanation}`;
        made = { assets, rendered, explanation, documents, tail };
        if (key !== null) alike?.set(key, made);
      }
      const { assets, rendered, explanation, documents } = made;
      let at = documentsAt.get(made);
      if (at === undefined) documentsAt.set(made, (at = tails.push(made.tail)));
      // The row's expected and next state and its firing, as one record of the statement's parameter (the user
      // id as JSON: it comes from outside). Fields in the order the statement reads them. The thresholds as
      // exact decimal text: the update applies only where `initial_value` still equals the one read, and a
      // double's text of a numeric would match no row (the firing silently dropped).
      const e = n;
      const eventId = randomUUID();
      const record =
        `${d.notificationId}${FIELD}${e.cycle}${FIELD}${e.initialValue.toString()}${FIELD}${e.lastTriggeredAt?.toISOString() ?? ''}${FIELD}` +
        `${x.isActive ? 't' : 'f'}${FIELD}${x.initialValue.toString()}${FIELD}${x.cycle}${FIELD}${x.lastTriggeredAt!.toISOString()}${FIELD}` +
        `${d.stepKey}${FIELD}${JSON.stringify(n.userId)}${FIELD}${n.kind}${FIELD}${at}${FIELD}${eventId}`;
      return { n, d, assets, rendered, explanation, documents, record, eventId };
    });
    timings.render = (timings.render ?? 0) + performance.now() - t0;
    await locking;
    const t1 = performance.now();
    timings.lockFeeds = (timings.lockFeeds ?? 0) + t1 - t0;
    // One statement: the state change applies only to rows still as they were read (a concurrent firing, switch
    // or delete wins; this one is dropped), the changed rows' firings are inserted (unique per step), and the
    // publication row names them. Its rows come as one text of records and fields split at control characters
    // (binding an array per column, some of JSON texts, cost the client more than the statement costs Postgres),
    // and the rows' count is known to the planner (the unnest of a parameter), which keeps it on an index scan per
    // row and a hash join, where `json_to_recordset`'s fixed guess of 100 rows once had it pick nested loops
    // (`docs/decisions/0026-alerts-firing-writes.md`). Read alone, 500 rows' state took 1.79 ms from a JSON parameter and 0.87 ms from such
    // text. The documents (path, texts, assets, explanation) come apart, each distinct one once, in a text of
    // their own ($3): lexed once as `json` into a one-row CTE of arrays, which a record's index subscripts (no join for the
    // planner to misjudge; walking to an element is ~3 µs at 500 distinct documents). Firings alike share their
    // documents (a bench chunk of ~500 firings had ~160): 417 → 172 KB a chunk, its round trip 22-28 → 17-21 ms alone.
    // The event id is made here and stored with the firing, so the direct publish and the backstop use the same
    // msgID (the column's default, `gen_random_uuid`, cost Postgres ~0.7 µs a firing; the column keeps it, unused
    // now).
    // A plain insert, not `on conflict do nothing`: a step key taken while its row still matched rolls the chunk
    // back either way, and the speculative insertion cost ~2 µs a firing (500 inserts 10.2-10.6 → 9.4-9.6 ms).
    let res: { changed: number; publication_id: string | null; fired: [number, number][] } | undefined;
    try {
      [res] = await tx.query<NonNullable<typeof res>>(
      `with docs as materialized (
         select array_agg(p[1]::json #>> '{}' order by o.i) as path, array_agg(p[2]::json order by o.i) as texts,
                array_agg(p[3]::json order by o.i) as assets, array_agg(p[4]::json order by o.i) as expl
           from unnest(string_to_array($3, E'\\x1e')) with ordinality as o(doc, i), string_to_array(o.doc, E'\\x1f') as p),
       d as (
         select f[1]::bigint as id, f[2]::int as exp_cycle, f[3]::numeric as exp_initial, nullif(f[4], '')::timestamptz as exp_last,
                f[5]::bool as next_active, f[6]::numeric as next_initial, f[7]::int as next_cycle, f[8]::timestamptz as next_last,
                f[9] as step, f[10]::json #>> '{}' as uid, f[11] as kind, f[12]::int as doc, f[13]::uuid as event_id
           from unnest(string_to_array($1, E'\\x1e')) as r(rec), string_to_array(r.rec, E'\\x1f') as f),
       changed as (
         update notifications n set is_active = d.next_active, initial_value = d.next_initial, cycle = d.next_cycle, last_triggered_at = d.next_last, updated_at = $2
           from d
          where n.id = d.id and n.is_active and n.cycle = d.exp_cycle and n.initial_value = d.exp_initial and n.last_triggered_at is not distinct from d.exp_last
         returning n.id),
       fired as (
         insert into notification_firings (notification_id, step_key, user_id, type, texts, path, assets, explanation, fired_at, event_id)
         select d.id, d.step, d.uid, d.kind, x.texts[d.doc], x.path[d.doc], x.assets[d.doc], x.expl[d.doc], $2, d.event_id
           from d join changed using (id) cross join docs x
         returning id, notification_id),
       published as (
         insert into firing_publications (firing_ids) select array_agg(id order by id) from fired having count(*) > 0 returning id)
       select (select count(*) from changed)::int as changed, (select id::text from published) as publication_id,
              coalesce((select json_agg(json_build_array(id, notification_id)) from fired), '[]') as fired`,
      [prepared.map((p) => p.record).join(RECORD), now, tails.join(RECORD)],
      );
    } catch (err) {
      // A row matched what was read but its step had already fired: the whole evaluation rolls back (the
      // consumer redelivers, the sweep runs again) rather than leave a state change without its firing.
      const { code, constraint } = pgError(err);
      if (code === '23505' && constraint === 'notification_firings_step_key') throw new Error('firing key already used; evaluation rolled back', { cause: err });
      throw err;
    }
    timings.write = (timings.write ?? 0) + performance.now() - t1;
    if (!res || res.changed === 0) return null;
    const firingOf = new Map(res.fired.map(([id, notificationId]) => [notificationId, id]));
    const firings: PriceFiringRecord[] = [];
    for (const r of prepared) {
      const id = firingOf.get(r.n.id);
      if (id === undefined) continue;
      firings.push({
        id,
        eventId: r.eventId,
        notificationId: r.n.id,
        userId: r.n.userId,
        type: r.n.kind,
        texts: r.rendered.texts,
        path: r.rendered.path,
        assets: r.assets,
        explanation: r.explanation,
        firedAt: now,
      });
    }
    this.opts.logger.debug({ fired: firings.length, source }, 'notifications fired');
    return { publicationId: Number(res.publication_id), firings };
  }

  private async assetNames(tx: SqlClient, rates: readonly RateView[]): Promise<Map<string, AssetName>> {
    if (rates.length === 0) return new Map();
    // Thousands of firings name the same few thousand assets: each asks once.
    const keys = [...new Map(rates.map((r) => [assetKey(r.assetType, r.assetId), r])).values()];
    const rows = await tx.query<{ asset_type: string; asset_id: string; ticker: string; name: string | null }>(
      'select a.asset_type, a.asset_id::text, a.ticker, a.name from assets a join unnest($1::text[], $2::bigint[]) as k(asset_type, asset_id) using (asset_type, asset_id)',
      [keys.map((r) => r.assetType), keys.map((r) => r.assetId)],
    );
    return new Map(rows.map((r) => [assetKey(r.asset_type, r.asset_id), { ticker: r.ticker, name: r.name }]));
  }
}
